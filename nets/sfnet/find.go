package sfnet

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// Finding Stockfish nets in a block of memory. A .nnue file (Stockfish 13
// and later) starts with the version 0x7AF32F20, the hash of the whole
// network, a description; then the feature transformer (its hash, its
// arrays, LEB128-compressed since Stockfish 16 and partly raw since 18) and
// the layer stacks, each starting with the same stack hash, which is the
// whole hash XOR the transformer's. The file's end is not stored: it is
// where the last stack ends. A cut is right when the file's SHA-256 starts
// with the 12 hex digits of the name the engine gives it (nn-<12 hex>.nnue),
// and the engine's binary holds that name as a string: the extraction
// checks itself.

// sfVersion is the version of Stockfish 13+ .nnue files.
const sfVersion uint32 = 0x7AF32F20

// leb128Magic precedes every LEB128-compressed array of a Stockfish 16+
// net, followed by the u32 byte count of the compressed data.
var leb128Magic = []byte("COMPRESSED_LEB128")

// Feature-set hashes that a description can name.
const (
	halfKAv2hmHash uint32 = 0x7F234CB8
)

// Net is a network found in memory.
type Net struct {
	// Name is nn-<first 12 hex digits of the SHA-256>.nnue.
	Name string
	// SHA256 is the hex SHA-256 of Data.
	SHA256 string
	// Data is the file (a slice of the memory searched).
	Data []byte
	// Offset is where the file starts (memory address).
	Offset uint64
	// Description is the net's own description text.
	Description string
	// Shape describes the architecture as far as the hashes tell it.
	Shape string
}

// Candidate is a net header that did not give a checked net, and why.
type Candidate struct {
	Offset uint64
	Reason string
}

// NetNames returns the distinct net names (nn-<12 hex>.nnue) that occur
// in b, sorted.
func NetNames(b []byte) []string {
	seen := map[string]bool{}
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("nn-"))
		if j < 0 {
			break
		}
		i += j
		if i+20 <= len(b) && string(b[i+15:i+20]) == ".nnue" && isLowerHex(b[i+3:i+15]) {
			seen[string(b[i:i+20])] = true
		}
		i += 3
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func isLowerHex(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// NameOf returns the Stockfish name of a net file: nn- and the first 12
// hex digits of its SHA-256.
func NameOf(data []byte) (name, sum string) {
	s := sha256.Sum256(data)
	sum = hex.EncodeToString(s[:])
	return "nn-" + sum[:12] + ".nnue", sum
}

// maxTries bounds the cuts tried per header (each costs a SHA-256 of the
// candidate file), maxHeaders the headers tried per memory.
const (
	maxTries   = 16
	maxHeaders = 256
)

// A layer stack holds its hash, int32 biases and int8 weights of at least
// three layers: far more than minStack bytes; a net has at most maxStacks
// of them (Stockfish: 8).
const (
	minStack  = 64
	maxStacks = 64
)

// FindNets finds the nets in mem (memory starting at address base) whose
// SHA-256 matches a name in names. It returns them in memory order, and
// the headers that looked like nets but gave no checked net.
func FindNets(mem []byte, base uint64, names []string) ([]Net, []Candidate) {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	var found []Net
	var failed []Candidate
	var ver [4]byte
	binary.LittleEndian.PutUint32(ver[:], sfVersion)
	for i := 0; ; {
		j := bytes.Index(mem[i:], ver[:])
		if j < 0 {
			break
		}
		o := i + j
		i = o + 1
		if len(failed) >= maxHeaders {
			failed = append(failed, Candidate{Offset: base + uint64(o), Reason: fmt.Sprintf("%d headers gave no net: stopped looking", maxHeaders)})
			break
		}
		n, reason, plausible := cutNet(mem, o, known)
		if n != nil {
			n.Offset = base + uint64(o)
			found = append(found, *n)
			i = o + len(n.Data)
			continue
		}
		if plausible {
			failed = append(failed, Candidate{Offset: base + uint64(o), Reason: reason})
		}
	}
	return found, failed
}

// cutNet tries to cut a net starting at mem[o]. plausible says whether
// the bytes looked like a net header at all (a version number alone is
// four bytes that can occur anywhere).
func cutNet(mem []byte, o int, known map[string]bool) (n *Net, reason string, plausible bool) {
	u32 := func(at int) (uint32, bool) {
		if at < 0 || at+4 > len(mem) {
			return 0, false
		}
		return binary.LittleEndian.Uint32(mem[at:]), true
	}
	whole, ok1 := u32(o + 4)
	descLen, ok2 := u32(o + 8)
	if !ok1 || !ok2 || descLen > 1<<16 || o+12+int(descLen)+4 > len(mem) {
		return nil, "", false
	}
	desc := mem[o+12 : o+12+int(descLen)]
	ftAt := o + 12 + int(descLen)
	ft, _ := u32(ftAt)
	stack := whole ^ ft
	pos := ftAt + 4
	// A net's transformer starts with LEB128 data (16+) or raw biases;
	// require the description to be text so that random bytes do not
	// count as a header.
	if !isText(desc) {
		return nil, "", false
	}
	shape := describe(ft, stack)
	var sb [4]byte
	binary.LittleEndian.PutUint32(sb[:], stack)
	tries := 0
	var why []string
	for pos+4 <= len(mem) && tries < maxTries {
		if bytes.HasPrefix(mem[pos:], leb128Magic) {
			cnt, ok := u32(pos + len(leb128Magic))
			if !ok || pos+len(leb128Magic)+4+int(cnt) > len(mem) {
				return nil, fmt.Sprintf("%s: a LEB128 block at +%d claims %d bytes, past the end of memory", shape, pos-o, cnt), true
			}
			pos += len(leb128Magic) + 4 + int(cnt)
			continue
		}
		if h, _ := u32(pos); h == stack {
			end, stacks := stacksEnd(mem, pos, sb[:])
			for k := stacks; k >= 1 && end > pos && tries < maxTries; k-- {
				tries++
				name, sum := NameOf(mem[o:end])
				if known[name] {
					return &Net{Name: name, SHA256: sum, Data: mem[o:end], Description: string(desc),
						Shape: fmt.Sprintf("%s, %d layer stacks of %d bytes", shape, k, (end-pos)/k)}, "", true
				}
				why = append(why, fmt.Sprintf("%d stacks at +%d end at +%d: SHA-256 %s names %s", k, pos-o, end-o, sum[:12], name))
				end -= (end - pos) / k
			}
		}
		// A raw array: go on at the next LEB128 block or stack hash.
		next := -1
		for _, pat := range [][]byte{leb128Magic, sb[:]} {
			if k := bytes.Index(mem[pos+1:], pat); k >= 0 && (next < 0 || pos+1+k < next) {
				next = pos + 1 + k
			}
		}
		if next < 0 {
			break
		}
		pos = next
	}
	if len(why) == 0 {
		return nil, fmt.Sprintf("%s (%q): no layer stack with hash 0x%08X found after the transformer", shape, trim(string(desc)), stack), true
	}
	if len(why) > 3 {
		why = append(why[:3], fmt.Sprintf("and %d more", len(why)-3))
	}
	return nil, fmt.Sprintf("%s (%q): no cut gives a name the module holds (%s)", shape, trim(string(desc)), strings.Join(why, "; ")), true
}

// stacksEnd returns where the layer stacks starting at pos end and how
// many there are: the stride is the distance to the next stack hash, and
// the stacks go on while the hash repeats at that stride.
func stacksEnd(mem []byte, pos int, hash []byte) (end, stacks int) {
	k := bytes.Index(mem[pos+4:], hash)
	if k < 0 || k+4 < minStack {
		return pos, 0
	}
	stride := k + 4
	n := 1
	for n < maxStacks && pos+n*stride+4 <= len(mem) && bytes.Equal(mem[pos+n*stride:pos+n*stride+4], hash) {
		n++
	}
	if n == maxStacks || pos+n*stride > len(mem) {
		return pos, 0 // not a net's stacks
	}
	return pos + n*stride, n
}

// describe names the architecture that a transformer hash and a stack
// hash imply.
func describe(ft, stack uint32) string {
	if x := ft ^ halfKAv2hmHash; x > 0 && x <= 1<<16 && x%2 == 0 {
		return fmt.Sprintf("HalfKAv2_hm (22528 inputs) -> %d", x/2)
	}
	return fmt.Sprintf("feature transformer hash 0x%08X (not plain HalfKAv2_hm: other or more input features)", ft)
}

func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return true
}

func trim(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
