//go:build amd64 && gc && !purego

#include "textflag.h"

// AVX2 kernels for package simd. Hand-written Plan 9 assembly; operand order
// is the Go one (sources first, destination last), so "VPSUBW B, A, D" is
// D = A - B. Every kernel is a leaf with no frame. The Go wrappers guarantee
// n > 0 and a whole number of 32-byte vectors, so no kernel has a scalar
// tail: the element-wise ones run a 4-vector (128-byte) unrolled loop and then
// a 1-vector loop for what is left. Loads and stores are unaligned (VMOVDQU):
// Go does not align slices to 32 bytes, and on Haswell and later an
// unaligned access that stays within a cache line costs the same.

// ---------------------------------------------------------------------------
// Accumulator updates (int16, wrapping like epi16 arithmetic).
// AX is the byte offset shared by all operands, CX the byte length and DX
// the byte length rounded down to the unrolled block.

// func copyAVX2(dst, src *int16, n int)
TEXT ·copyAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $1, CX
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-128, DX
	JZ   tail

loop4:
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VMOVDQU 64(SI)(AX*1), Y2
	VMOVDQU 96(SI)(AX*1), Y3
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	VMOVDQU Y2, 64(DI)(AX*1)
	VMOVDQU Y3, 96(DI)(AX*1)
	ADDQ    $128, AX
	CMPQ    AX, DX
	JB      loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      loop1

done:
	VZEROUPPER
	RET

// func addAVX2(dst, a *int16, n int)
TEXT ·addAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $1, CX
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-128, DX
	JZ   tail

loop4:
	VMOVDQU (DI)(AX*1), Y0
	VMOVDQU 32(DI)(AX*1), Y1
	VMOVDQU 64(DI)(AX*1), Y2
	VMOVDQU 96(DI)(AX*1), Y3
	VPADDW  (SI)(AX*1), Y0, Y0
	VPADDW  32(SI)(AX*1), Y1, Y1
	VPADDW  64(SI)(AX*1), Y2, Y2
	VPADDW  96(SI)(AX*1), Y3, Y3
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	VMOVDQU Y2, 64(DI)(AX*1)
	VMOVDQU Y3, 96(DI)(AX*1)
	ADDQ    $128, AX
	CMPQ    AX, DX
	JB      loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
	VMOVDQU (DI)(AX*1), Y0
	VPADDW  (SI)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      loop1

done:
	VZEROUPPER
	RET

// func subAVX2(dst, a *int16, n int)
TEXT ·subAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $1, CX
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-128, DX
	JZ   tail

loop4:
	VMOVDQU (DI)(AX*1), Y0
	VMOVDQU 32(DI)(AX*1), Y1
	VMOVDQU 64(DI)(AX*1), Y2
	VMOVDQU 96(DI)(AX*1), Y3
	VPSUBW  (SI)(AX*1), Y0, Y0
	VPSUBW  32(SI)(AX*1), Y1, Y1
	VPSUBW  64(SI)(AX*1), Y2, Y2
	VPSUBW  96(SI)(AX*1), Y3, Y3
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	VMOVDQU Y2, 64(DI)(AX*1)
	VMOVDQU Y3, 96(DI)(AX*1)
	ADDQ    $128, AX
	CMPQ    AX, DX
	JB      loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
	VMOVDQU (DI)(AX*1), Y0
	VPSUBW  (SI)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      loop1

done:
	VZEROUPPER
	RET

// func addSubAVX2(dst, src, add, sub *int16, n int)
// All loads of a block happen before its store, so dst may be src (or any
// other operand) exactly.
TEXT ·addSubAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ add+16(FP), R8
	MOVQ sub+24(FP), R9
	MOVQ n+32(FP), CX
	SHLQ $1, CX
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-128, DX
	JZ   tail

loop4:
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VMOVDQU 64(SI)(AX*1), Y2
	VMOVDQU 96(SI)(AX*1), Y3
	VPADDW  (R8)(AX*1), Y0, Y0
	VPADDW  32(R8)(AX*1), Y1, Y1
	VPADDW  64(R8)(AX*1), Y2, Y2
	VPADDW  96(R8)(AX*1), Y3, Y3
	VPSUBW  (R9)(AX*1), Y0, Y0
	VPSUBW  32(R9)(AX*1), Y1, Y1
	VPSUBW  64(R9)(AX*1), Y2, Y2
	VPSUBW  96(R9)(AX*1), Y3, Y3
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	VMOVDQU Y2, 64(DI)(AX*1)
	VMOVDQU Y3, 96(DI)(AX*1)
	ADDQ    $128, AX
	CMPQ    AX, DX
	JB      loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
	VMOVDQU (SI)(AX*1), Y0
	VPADDW  (R8)(AX*1), Y0, Y0
	VPSUBW  (R9)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      loop1

done:
	VZEROUPPER
	RET

// func addSubSubAVX2(dst, src, add, sub1, sub2 *int16, n int)
TEXT ·addSubSubAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ add+16(FP), R8
	MOVQ sub1+24(FP), R9
	MOVQ sub2+32(FP), R10
	MOVQ n+40(FP), CX
	SHLQ $1, CX
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-128, DX
	JZ   tail

loop4:
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VMOVDQU 64(SI)(AX*1), Y2
	VMOVDQU 96(SI)(AX*1), Y3
	VPADDW  (R8)(AX*1), Y0, Y0
	VPADDW  32(R8)(AX*1), Y1, Y1
	VPADDW  64(R8)(AX*1), Y2, Y2
	VPADDW  96(R8)(AX*1), Y3, Y3
	VPSUBW  (R9)(AX*1), Y0, Y0
	VPSUBW  32(R9)(AX*1), Y1, Y1
	VPSUBW  64(R9)(AX*1), Y2, Y2
	VPSUBW  96(R9)(AX*1), Y3, Y3
	VPSUBW  (R10)(AX*1), Y0, Y0
	VPSUBW  32(R10)(AX*1), Y1, Y1
	VPSUBW  64(R10)(AX*1), Y2, Y2
	VPSUBW  96(R10)(AX*1), Y3, Y3
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	VMOVDQU Y2, 64(DI)(AX*1)
	VMOVDQU Y3, 96(DI)(AX*1)
	ADDQ    $128, AX
	CMPQ    AX, DX
	JB      loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
	VMOVDQU (SI)(AX*1), Y0
	VPADDW  (R8)(AX*1), Y0, Y0
	VPSUBW  (R9)(AX*1), Y0, Y0
	VPSUBW  (R10)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      loop1

done:
	VZEROUPPER
	RET

// func addAddSubSubAVX2(dst, src, add1, add2, sub1, sub2 *int16, n int)
TEXT ·addAddSubSubAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ add1+16(FP), R8
	MOVQ add2+24(FP), R9
	MOVQ sub1+32(FP), R10
	MOVQ sub2+40(FP), R11
	MOVQ n+48(FP), CX
	SHLQ $1, CX
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-128, DX
	JZ   tail

loop4:
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VMOVDQU 64(SI)(AX*1), Y2
	VMOVDQU 96(SI)(AX*1), Y3
	VPADDW  (R8)(AX*1), Y0, Y0
	VPADDW  32(R8)(AX*1), Y1, Y1
	VPADDW  64(R8)(AX*1), Y2, Y2
	VPADDW  96(R8)(AX*1), Y3, Y3
	VPADDW  (R9)(AX*1), Y0, Y0
	VPADDW  32(R9)(AX*1), Y1, Y1
	VPADDW  64(R9)(AX*1), Y2, Y2
	VPADDW  96(R9)(AX*1), Y3, Y3
	VPSUBW  (R10)(AX*1), Y0, Y0
	VPSUBW  32(R10)(AX*1), Y1, Y1
	VPSUBW  64(R10)(AX*1), Y2, Y2
	VPSUBW  96(R10)(AX*1), Y3, Y3
	VPSUBW  (R11)(AX*1), Y0, Y0
	VPSUBW  32(R11)(AX*1), Y1, Y1
	VPSUBW  64(R11)(AX*1), Y2, Y2
	VPSUBW  96(R11)(AX*1), Y3, Y3
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	VMOVDQU Y2, 64(DI)(AX*1)
	VMOVDQU Y3, 96(DI)(AX*1)
	ADDQ    $128, AX
	CMPQ    AX, DX
	JB      loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
	VMOVDQU (SI)(AX*1), Y0
	VPADDW  (R8)(AX*1), Y0, Y0
	VPADDW  (R9)(AX*1), Y0, Y0
	VPSUBW  (R10)(AX*1), Y0, Y0
	VPSUBW  (R11)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      loop1

done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Activations (int16 -> uint8).
//
// VPACKUSWB saturates int16 to [0, 255] but packs within 128-bit lanes: from
// sources A (first 16 elements) and B (next 16) it yields the quadwords
// A0 B0 A1 B1 (A0 = A's low lane ...). VPERMQ $0xD8 (order 0, 2, 1, 3) puts
// them back in memory order A0 A1 B0 B1.

// func clippedReLUAVX2(dst *uint8, src *int16, n int, max int16)
// dst[i] = min(packus(src[i]), max): saturating to [0, 255] first and then
// taking the unsigned byte minimum with max <= 255 is clamp(src[i], 0, max).
TEXT ·clippedReLUAVX2(SB), NOSPLIT, $0-26
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    n+16(FP), CX
	MOVWLZX max+24(FP), AX
	VMOVD    AX, X7
	VPBROADCASTB X7, Y7

	CMPQ CX, $64
	JB   tail

loop2:
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y1
	VMOVDQU   64(SI), Y2
	VMOVDQU   96(SI), Y3
	VPACKUSWB Y1, Y0, Y0
	VPACKUSWB Y3, Y2, Y2
	VPERMQ    $0xD8, Y0, Y0
	VPERMQ    $0xD8, Y2, Y2
	VPMINUB   Y7, Y0, Y0
	VPMINUB   Y7, Y2, Y2
	VMOVDQU   Y0, (DI)
	VMOVDQU   Y2, 32(DI)
	ADDQ      $128, SI
	ADDQ      $64, DI
	SUBQ      $64, CX
	CMPQ      CX, $64
	JAE       loop2

tail:
	TESTQ CX, CX
	JZ    done
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y1
	VPACKUSWB Y1, Y0, Y0
	VPERMQ    $0xD8, Y0, Y0
	VPMINUB   Y7, Y0, Y0
	VMOVDQU   Y0, (DI)

done:
	VZEROUPPER
	RET

// func pairwiseClippedReLUAVX2(dst *uint8, src *int16, n int)
// dst[j] = clamp(src[j],0,127) * clamp(src[j+n],0,127) >> 7. The product is
// at most 127*127 = 16129, so VPMULLW is exact and the shifted result (at most
// 126) packs without saturation.
TEXT ·pairwiseClippedReLUAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	LEAQ (SI)(CX*2), R8 // second half: src[n:]

	VPXOR     Y15, Y15, Y15 // 0
	VPCMPEQW  Y14, Y14, Y14
	VPSRLW    $9, Y14, Y14  // 0x007f = 127 in every word

loop:
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y1
	VMOVDQU   (R8), Y2
	VMOVDQU   32(R8), Y3
	VPMAXSW   Y15, Y0, Y0
	VPMAXSW   Y15, Y1, Y1
	VPMAXSW   Y15, Y2, Y2
	VPMAXSW   Y15, Y3, Y3
	VPMINSW   Y14, Y0, Y0
	VPMINSW   Y14, Y1, Y1
	VPMINSW   Y14, Y2, Y2
	VPMINSW   Y14, Y3, Y3
	VPMULLW   Y2, Y0, Y0
	VPMULLW   Y3, Y1, Y1
	VPSRLW    $7, Y0, Y0
	VPSRLW    $7, Y1, Y1
	VPACKUSWB Y1, Y0, Y0
	VPERMQ    $0xD8, Y0, Y0
	VMOVDQU   Y0, (DI)
	ADDQ      $64, SI
	ADDQ      $64, R8
	ADDQ      $32, DI
	SUBQ      $32, CX
	JNZ       loop

	VZEROUPPER
	RET

// Activations (int32 -> uint8): the clipped ReLU between dense layers.
//
// VPACKSSDW (int32 -> int16, signed saturation) and VPACKUSWB (int16 ->
// uint8, unsigned saturation) both pack within 128-bit lanes, so packing
// four vectors A, B, C, D of eight sums leaves the dwords (four bytes each)
// in the order A0 B0 C0 D0 A1 B1 C1 D1 (A0 = A's first four elements);
// VPERMD with clipShiftOrder puts them back in memory order.
DATA clipShiftOrder<>+0(SB)/4, $0
DATA clipShiftOrder<>+4(SB)/4, $4
DATA clipShiftOrder<>+8(SB)/4, $1
DATA clipShiftOrder<>+12(SB)/4, $5
DATA clipShiftOrder<>+16(SB)/4, $2
DATA clipShiftOrder<>+20(SB)/4, $6
DATA clipShiftOrder<>+24(SB)/4, $3
DATA clipShiftOrder<>+28(SB)/4, $7
GLOBL clipShiftOrder<>(SB), RODATA|NOPTR, $32

// func clipShiftAVX2(dst *uint8, src *int32, n int, shift uint, ceil uint8)
// dst[i] = min(packus(packss(src[i] >> shift)), ceil): both saturations are
// monotonic and leave [0, 255] alone, so with ceil <= 255 this is
// clamp(src[i] >> shift, 0, ceil). VPSRAD shifts by the whole 64-bit count,
// filling with the sign from 32 on, like Go's >>.
TEXT ·clipShiftAVX2(SB), NOSPLIT, $0-33
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    n+16(FP), CX
	MOVQ    shift+24(FP), AX
	VMOVQ   AX, X6
	MOVBLZX ceil+32(FP), AX
	VMOVD   AX, X7
	VPBROADCASTB X7, Y7
	VMOVDQU clipShiftOrder<>(SB), Y5

loop:
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y1
	VMOVDQU   64(SI), Y2
	VMOVDQU   96(SI), Y3
	VPSRAD    X6, Y0, Y0
	VPSRAD    X6, Y1, Y1
	VPSRAD    X6, Y2, Y2
	VPSRAD    X6, Y3, Y3
	VPACKSSDW Y1, Y0, Y0
	VPACKSSDW Y3, Y2, Y2
	VPACKUSWB Y2, Y0, Y0
	VPERMD    Y0, Y5, Y0
	VPMINUB   Y7, Y0, Y0
	VMOVDQU   Y0, (DI)
	ADDQ      $128, SI
	ADDQ      $32, DI
	SUBQ      $32, CX
	JNZ       loop

	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Dot products.
//
// uint8 x int8 without saturation. VPMADDUBSW multiplies unsigned by signed
// bytes and adds adjacent pairs into a saturating int16, and 255*-128*2 =
// -65280 does not fit. Two exact ways around it, both with all int32 sums
// wrapping (wrapping addition does not depend on order, so the results equal
// the Go loops bit for bit):
//
// Even/odd split (DotUint8Int8): a & 0x00ff and a & 0xff00 per word leave one
// nonzero product per word, |a*w| <= 32640, exact; VPMADDWD against words of
// 1 widens adjacent words to int32. Four multiplies per 32 bytes, no state.
//
// Low/high split (Affine): a = lo + 128*b with lo = a & 0x7f, b = a >> 7:
//   - VPMADDUBSW(lo, w): |pair| <= 2*127*128 = 32512, exact; VPMADDWD
//     against words of 1 widens it to int32 every step.
//   - VPMADDUBSW(b, w): |pair| <= 256, so up to 127 steps add up in int16
//     without overflow (127*256 = 32512); VPMADDWD against words of 128
//     widens and scales them once per block of at most 127 steps.
// Three multiplies per 32 bytes and row, and the split is shared by the four
// rows computed together: about 11% faster than the even/odd split for
// 1024->16 (it was slower for a lone dot product, hence the two schemes).

#define BLOCK $4064 // 127 steps of 32 bytes

// REDUCE32 sums the eight int32 lanes of Y into the low dword of X (X is Y's
// low half), using T as scratch.
#define REDUCE32(Y, X, T) \
	VEXTRACTI128 $1, Y, T; \
	VPADDD       T, X, X; \
	VPSHUFD      $0x4e, X, T; \
	VPADDD       T, X, X; \
	VPSHUFD      $0xb1, X, T; \
	VPADDD       T, X, X

// DOTCONST sets ONES to 1 in every word and M80 to 0x80 in every byte,
// using T as scratch.
#define DOTCONST(ONES, M80, T) \
	VPCMPEQW ONES, ONES, ONES; \
	VPSRLW   $15, ONES, ONES; \
	VPSLLW   $7, ONES, M80; \
	VPSLLW   $8, M80, T; \
	VPOR     T, M80, M80

// SPLIT turns the input bytes in A into LO = A & 0x7f and B = A >> 7 per
// byte (LO may be A). The word shift moves bit 15 to bit 8 and bit 7 to bit
// 0, each within its own byte.
#define SPLIT(A, LO, B, M80) \
	VPAND  M80, A, B; \
	VPXOR  B, A, LO; \
	VPSRLW $7, B, B

// ROW accumulates one row of weights W (a memory operand): ACC (int32) +=
// pairs of LO*W, HACC (int16) += pairs of B*W. T and U are scratch.
#define ROW(W, LO, B, ACC, HACC, T, U, ONES) \
	VPMADDUBSW W, LO, T; \
	VPMADDUBSW W, B, U; \
	VPMADDWD   ONES, T, T; \
	VPADDD     T, ACC, ACC; \
	VPADDW     U, HACC, HACC

// FLUSH adds 128*HACC to ACC and clears HACC (W128: 128 in every word).
#define FLUSH(ACC, HACC, W128) \
	VPMADDWD W128, HACC, HACC; \
	VPADDD   HACC, ACC, ACC; \
	VPXOR    HACC, HACC, HACC

// BLOCKEND sets CX to min(AX + BLOCK, N).
#define BLOCKEND(N) \
	MOVQ    AX, CX; \
	ADDQ    BLOCK, CX; \
	CMPQ    CX, N; \
	CMOVQHI N, CX

// func dotUint8Int8AVX2(a *uint8, w *int8, n int) int32
TEXT ·dotUint8Int8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ w+8(FP), DI
	MOVQ n+16(FP), CX

	VPCMPEQW Y14, Y14, Y14
	VPSRLW   $8, Y14, Y15  // 0x00ff words: even-byte mask
	VPSRLW   $15, Y14, Y14 // 1 in every word
	VPXOR    Y8, Y8, Y8
	VPXOR    Y9, Y9, Y9
	XORQ     AX, AX
	MOVQ     CX, DX
	ANDQ     $-64, DX
	JZ       tail

loop2:
	VMOVDQU    (SI)(AX*1), Y0
	VMOVDQU    32(SI)(AX*1), Y3
	VPAND      Y15, Y0, Y1
	VPANDN     Y0, Y15, Y2
	VPAND      Y15, Y3, Y4
	VPANDN     Y3, Y15, Y5
	VPMADDUBSW (DI)(AX*1), Y1, Y1
	VPMADDUBSW (DI)(AX*1), Y2, Y2
	VPMADDUBSW 32(DI)(AX*1), Y4, Y4
	VPMADDUBSW 32(DI)(AX*1), Y5, Y5
	VPMADDWD   Y14, Y1, Y1
	VPMADDWD   Y14, Y2, Y2
	VPMADDWD   Y14, Y4, Y4
	VPMADDWD   Y14, Y5, Y5
	VPADDD     Y1, Y8, Y8
	VPADDD     Y2, Y9, Y9
	VPADDD     Y4, Y8, Y8
	VPADDD     Y5, Y9, Y9
	ADDQ       $64, AX
	CMPQ       AX, DX
	JB         loop2

tail:
	CMPQ AX, CX
	JAE  done
	VMOVDQU    (SI)(AX*1), Y0
	VPAND      Y15, Y0, Y1
	VPANDN     Y0, Y15, Y2
	VPMADDUBSW (DI)(AX*1), Y1, Y1
	VPMADDUBSW (DI)(AX*1), Y2, Y2
	VPMADDWD   Y14, Y1, Y1
	VPMADDWD   Y14, Y2, Y2
	VPADDD     Y1, Y8, Y8
	VPADDD     Y2, Y9, Y9

done:
	VPADDD Y9, Y8, Y8
	REDUCE32(Y8, X8, X0)
	VMOVD   X8, AX
	MOVL   AX, ret+24(FP)
	VZEROUPPER
	RET

// func affineAVX2(out *int32, in *uint8, w *int8, bias *int32, rows, cols int)
// Four rows at a time share one load and split of the input; their int32
// accumulators are folded with VPHADDD into one XMM of four sums, the bias
// added and the four outputs stored together. Leftover rows (rows % 4) run
// one at a time.
TEXT ·affineAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ in+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ bias+24(FP), R9
	MOVQ rows+32(FP), R10
	MOVQ cols+40(FP), R11
	DOTCONST(Y14, Y15, Y10)

rows4:
	CMPQ  R10, $4
	JB    rows1
	MOVQ  R8, BX            // row 0
	LEAQ  (BX)(R11*1), R12  // row 1
	LEAQ  (R12)(R11*1), R13 // row 2
	LEAQ  (R13)(R11*1), DX  // row 3
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	XORQ  AX, AX

block4:
	BLOCKEND(R11)

inner4:
	VMOVDQU (SI)(AX*1), Y8
	SPLIT(Y8, Y8, Y9, Y15)
	ROW((BX)(AX*1), Y8, Y9, Y0, Y4, Y10, Y11, Y14)
	ROW((R12)(AX*1), Y8, Y9, Y1, Y5, Y12, Y13, Y14)
	ROW((R13)(AX*1), Y8, Y9, Y2, Y6, Y10, Y11, Y14)
	ROW((DX)(AX*1), Y8, Y9, Y3, Y7, Y12, Y13, Y14)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      inner4
	VPSLLW  $7, Y14, Y10 // 128 in every word
	FLUSH(Y0, Y4, Y10)
	FLUSH(Y1, Y5, Y10)
	FLUSH(Y2, Y6, Y10)
	FLUSH(Y3, Y7, Y10)
	CMPQ    AX, R11
	JB      block4

	// Per 128-bit lane: [r0 r0 r1 r1] after the first VPHADDD, [r2 r2 r3 r3]
	// after the second, [r0 r1 r2 r3] after the third; then add the lanes.
	VPHADDD      Y1, Y0, Y0
	VPHADDD      Y3, Y2, Y2
	VPHADDD      Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPADDD       (R9), X0, X0
	VMOVDQU      X0, (DI)
	ADDQ         $16, DI
	ADDQ         $16, R9
	LEAQ         (DX)(R11*1), R8 // the next block starts after row 3
	SUBQ         $4, R10
	JMP          rows4

rows1:
	TESTQ  R10, R10
	JZ     done
	VPXOR  Y0, Y0, Y0
	VPXOR  Y4, Y4, Y4
	XORQ   AX, AX

block1:
	BLOCKEND(R11)

inner1:
	VMOVDQU (SI)(AX*1), Y8
	SPLIT(Y8, Y8, Y9, Y15)
	ROW((R8)(AX*1), Y8, Y9, Y0, Y4, Y10, Y11, Y14)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      inner1
	VPSLLW  $7, Y14, Y10
	FLUSH(Y0, Y4, Y10)
	CMPQ    AX, R11
	JB      block1

	REDUCE32(Y0, X0, X1)
	VMOVD X0, BX
	ADDL (R9), BX
	MOVL BX, (DI)
	ADDQ $4, DI
	ADDQ $4, R9
	ADDQ R11, R8
	DECQ R10
	JMP  rows1

done:
	VZEROUPPER
	RET

// ROW7 accumulates one row of weights W (a memory operand) against input
// bytes A that are all below 128: the byte pairs cannot saturate VPMADDUBSW
// (2*127*128 < 32768), so one multiply per 32 bytes is exact.
#define ROW7(W, A, ACC, T, ONES) \
	VPMADDUBSW W, A, T; \
	VPMADDWD   ONES, T, T; \
	VPADDD     T, ACC, ACC

// func affine7AVX2(out *int32, in *uint8, w *int8, bias *int32, rows, cols int)
// Affine for inputs below 128 (clipped-ReLU outputs with a ceiling of 127):
// the same four-rows-at-a-time layout as affineAVX2 without the split of
// the input's top bit.
TEXT ·affine7AVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ in+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ bias+24(FP), R9
	MOVQ rows+32(FP), R10
	MOVQ cols+40(FP), R11
	VPCMPEQW Y14, Y14, Y14
	VPSRLW   $15, Y14, Y14 // 1 in every word

a7rows4:
	CMPQ  R10, $4
	JB    a7rows1
	MOVQ  R8, BX
	LEAQ  (BX)(R11*1), R12
	LEAQ  (R12)(R11*1), R13
	LEAQ  (R13)(R11*1), DX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ  AX, AX

a7inner4:
	VMOVDQU (SI)(AX*1), Y8
	ROW7((BX)(AX*1), Y8, Y0, Y10, Y14)
	ROW7((R12)(AX*1), Y8, Y1, Y11, Y14)
	ROW7((R13)(AX*1), Y8, Y2, Y12, Y14)
	ROW7((DX)(AX*1), Y8, Y3, Y13, Y14)
	ADDQ    $32, AX
	CMPQ    AX, R11
	JB      a7inner4

	VPHADDD      Y1, Y0, Y0
	VPHADDD      Y3, Y2, Y2
	VPHADDD      Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPADDD       (R9), X0, X0
	VMOVDQU      X0, (DI)
	ADDQ         $16, DI
	ADDQ         $16, R9
	LEAQ         (DX)(R11*1), R8
	SUBQ         $4, R10
	JMP          a7rows4

a7rows1:
	TESTQ  R10, R10
	JZ     a7done
	VPXOR  Y0, Y0, Y0
	XORQ   AX, AX

a7inner1:
	VMOVDQU (SI)(AX*1), Y8
	ROW7((R8)(AX*1), Y8, Y0, Y10, Y14)
	ADDQ    $32, AX
	CMPQ    AX, R11
	JB      a7inner1

	REDUCE32(Y0, X0, X1)
	VMOVD X0, BX
	ADDL (R9), BX
	MOVL BX, (DI)
	ADDQ $4, DI
	ADDQ $4, R9
	ADDQ R11, R8
	DECQ R10
	JMP  a7rows1

a7done:
	VZEROUPPER
	RET

// int16 activations x int16 weights: after clamping to [0, 32767] the
// activation times any int16 weight is exact in VPMADDWD (the only
// saturating input, -32768 * -32768 twice, cannot occur), and the pair sum
// fits int32.

// func dotReLUAVX2(acc, w *int16, n int) int32
TEXT ·dotReLUAVX2(SB), NOSPLIT, $0-28
	MOVQ acc+0(FP), SI
	MOVQ w+8(FP), DI
	MOVQ n+16(FP), CX
	SHLQ $1, CX
	VPXOR Y15, Y15, Y15
	VPXOR Y8, Y8, Y8
	VPXOR Y9, Y9, Y9
	XORQ  AX, AX
	MOVQ  CX, DX
	ANDQ  $-128, DX
	JZ    tail

loop4:
	VMOVDQU  (SI)(AX*1), Y0
	VMOVDQU  32(SI)(AX*1), Y1
	VMOVDQU  64(SI)(AX*1), Y2
	VMOVDQU  96(SI)(AX*1), Y3
	VPMAXSW  Y15, Y0, Y0
	VPMAXSW  Y15, Y1, Y1
	VPMAXSW  Y15, Y2, Y2
	VPMAXSW  Y15, Y3, Y3
	VPMADDWD (DI)(AX*1), Y0, Y0
	VPMADDWD 32(DI)(AX*1), Y1, Y1
	VPMADDWD 64(DI)(AX*1), Y2, Y2
	VPMADDWD 96(DI)(AX*1), Y3, Y3
	VPADDD   Y0, Y8, Y8
	VPADDD   Y1, Y9, Y9
	VPADDD   Y2, Y8, Y8
	VPADDD   Y3, Y9, Y9
	ADDQ     $128, AX
	CMPQ     AX, DX
	JB       loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
	VMOVDQU  (SI)(AX*1), Y0
	VPMAXSW  Y15, Y0, Y0
	VPMADDWD (DI)(AX*1), Y0, Y0
	VPADDD   Y0, Y8, Y8
	ADDQ     $32, AX
	CMPQ     AX, CX
	JB       loop1

done:
	VPADDD Y9, Y8, Y8
	REDUCE32(Y8, X8, X0)
	VMOVD   X8, AX
	MOVL   AX, ret+24(FP)
	VZEROUPPER
	RET

// func dotClippedReLUAVX2(acc, w *int16, n int, max int16) int32
TEXT ·dotClippedReLUAVX2(SB), NOSPLIT, $0-36
	MOVQ    acc+0(FP), SI
	MOVQ    w+8(FP), DI
	MOVQ    n+16(FP), CX
	MOVWLZX max+24(FP), AX
	VMOVD    AX, X14
	VPBROADCASTW X14, Y14
	SHLQ    $1, CX
	VPXOR   Y15, Y15, Y15
	VPXOR   Y8, Y8, Y8
	VPXOR   Y9, Y9, Y9
	XORQ    AX, AX
	MOVQ    CX, DX
	ANDQ    $-128, DX
	JZ      tail

loop4:
	VMOVDQU  (SI)(AX*1), Y0
	VMOVDQU  32(SI)(AX*1), Y1
	VMOVDQU  64(SI)(AX*1), Y2
	VMOVDQU  96(SI)(AX*1), Y3
	VPMAXSW  Y15, Y0, Y0
	VPMAXSW  Y15, Y1, Y1
	VPMAXSW  Y15, Y2, Y2
	VPMAXSW  Y15, Y3, Y3
	VPMINSW  Y14, Y0, Y0
	VPMINSW  Y14, Y1, Y1
	VPMINSW  Y14, Y2, Y2
	VPMINSW  Y14, Y3, Y3
	VPMADDWD (DI)(AX*1), Y0, Y0
	VPMADDWD 32(DI)(AX*1), Y1, Y1
	VPMADDWD 64(DI)(AX*1), Y2, Y2
	VPMADDWD 96(DI)(AX*1), Y3, Y3
	VPADDD   Y0, Y8, Y8
	VPADDD   Y1, Y9, Y9
	VPADDD   Y2, Y8, Y8
	VPADDD   Y3, Y9, Y9
	ADDQ     $128, AX
	CMPQ     AX, DX
	JB       loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
	VMOVDQU  (SI)(AX*1), Y0
	VPMAXSW  Y15, Y0, Y0
	VPMINSW  Y14, Y0, Y0
	VPMADDWD (DI)(AX*1), Y0, Y0
	VPADDD   Y0, Y8, Y8
	ADDQ     $32, AX
	CMPQ     AX, CX
	JB       loop1

done:
	VPADDD Y9, Y8, Y8
	REDUCE32(Y8, X8, X0)
	VMOVD   X8, AX
	MOVL   AX, ret+32(FP)
	VZEROUPPER
	RET

// func dotSquaredClippedReLUAVX2(acc, w *int16, n int, max int16) int32
// c = clamp(acc, 0, max <= 255), so c*c <= 65025 fits 16 unsigned bits and
// VPMULLW gives it exactly, but VPMADDWD reads words as signed: where
// c*c >= 32768 it multiplies by c*c - 65536. The kernel adds back 65536*w for
// those lanes: VPSRAW $15 turns the square into a mask m (-1 where wrapped,
// else 0), VPMADDWD(m, w) sums -w over the wrapped lanes into Y10/Y11, and at
// the end the result is main - (correction << 16), all modulo 2^32. The
// signed square is never -32768 (no square is 32768), so no VPMADDWD here
// saturates.
TEXT ·dotSquaredClippedReLUAVX2(SB), NOSPLIT, $0-36
	MOVQ    acc+0(FP), SI
	MOVQ    w+8(FP), DI
	MOVQ    n+16(FP), CX
	MOVWLZX max+24(FP), AX
	VMOVD    AX, X14
	VPBROADCASTW X14, Y14
	SHLQ    $1, CX
	VPXOR   Y15, Y15, Y15
	VPXOR   Y8, Y8, Y8
	VPXOR   Y9, Y9, Y9
	VPXOR   Y10, Y10, Y10
	VPXOR   Y11, Y11, Y11
	XORQ    AX, AX
	MOVQ    CX, DX
	ANDQ    $-64, DX
	JZ      tail

loop2:
	VMOVDQU  (SI)(AX*1), Y0
	VMOVDQU  32(SI)(AX*1), Y1
	VMOVDQU  (DI)(AX*1), Y4
	VMOVDQU  32(DI)(AX*1), Y5
	VPMAXSW  Y15, Y0, Y0
	VPMAXSW  Y15, Y1, Y1
	VPMINSW  Y14, Y0, Y0
	VPMINSW  Y14, Y1, Y1
	VPMULLW  Y0, Y0, Y0
	VPMULLW  Y1, Y1, Y1
	VPSRAW   $15, Y0, Y2
	VPSRAW   $15, Y1, Y3
	VPMADDWD Y4, Y0, Y0
	VPMADDWD Y5, Y1, Y1
	VPMADDWD Y4, Y2, Y2
	VPMADDWD Y5, Y3, Y3
	VPADDD   Y0, Y8, Y8
	VPADDD   Y1, Y9, Y9
	VPADDD   Y2, Y10, Y10
	VPADDD   Y3, Y11, Y11
	ADDQ     $64, AX
	CMPQ     AX, DX
	JB       loop2

tail:
	CMPQ AX, CX
	JAE  done
	VMOVDQU  (SI)(AX*1), Y0
	VMOVDQU  (DI)(AX*1), Y4
	VPMAXSW  Y15, Y0, Y0
	VPMINSW  Y14, Y0, Y0
	VPMULLW  Y0, Y0, Y0
	VPSRAW   $15, Y0, Y2
	VPMADDWD Y4, Y0, Y0
	VPMADDWD Y4, Y2, Y2
	VPADDD   Y0, Y8, Y8
	VPADDD   Y2, Y10, Y10

done:
	VPADDD Y9, Y8, Y8
	VPADDD Y11, Y10, Y10
	VPSLLD $16, Y10, Y10
	VPSUBD Y10, Y8, Y8
	REDUCE32(Y8, X8, X0)
	VMOVD   X8, AX
	MOVL   AX, ret+32(FP)
	VZEROUPPER
	RET
