'use strict';
// Positions as the nnuelab plugin protocol sends them (FEN or packed
// 40-byte records), move deltas, and the evaluator: the same float
// piece-square network as the Go example plugin gofloat (768 inputs ->
// middlegame sum, endgame sum, phase; tapered head), so that the two can be
// checked against each other.

const EMPTY = 12;
const NO_SQUARE = 64;
const PACKED_SIZE = 40;
const LETTERS = 'PNBRQKpnbrqk';

// Board: squares (Uint8Array(64), piece 0..11 or EMPTY, a1 = 0), black
// (side to move), castling bits, ep square, halfmove, fullmove.
function parseFEN(fen) {
  const f = String(fen).trim().split(/\s+/);
  if (f.length < 4 || f.length > 6) throw new Error(`fen ${JSON.stringify(fen)}: want 4 to 6 fields, got ${f.length}`);
  const squares = new Uint8Array(64).fill(EMPTY);
  const ranks = f[0].split('/');
  if (ranks.length !== 8) throw new Error(`fen ${JSON.stringify(fen)}: want 8 ranks`);
  const kings = [0, 0];
  ranks.forEach((row, i) => {
    const r = 7 - i;
    let file = 0;
    for (const c of row) {
      if (c >= '1' && c <= '8') {
        file += c.charCodeAt(0) - 48;
      } else {
        const p = LETTERS.indexOf(c);
        if (p < 0) throw new Error(`fen ${JSON.stringify(fen)}: bad character ${JSON.stringify(c)}`);
        if (file > 7) throw new Error(`fen ${JSON.stringify(fen)}: rank ${r + 1} has more than 8 files`);
        squares[r * 8 + file] = p;
        if (p % 6 === 5) kings[p >= 6 ? 1 : 0]++;
        file++;
      }
      if (file > 8) throw new Error(`fen ${JSON.stringify(fen)}: rank ${r + 1} has more than 8 files`);
    }
    if (file !== 8) throw new Error(`fen ${JSON.stringify(fen)}: rank ${r + 1} has ${file} files`);
  });
  if (kings[0] !== 1 || kings[1] !== 1) throw new Error(`fen ${JSON.stringify(fen)}: want one king per side`);
  if (f[1] !== 'w' && f[1] !== 'b') throw new Error(`fen ${JSON.stringify(fen)}: side to move ${JSON.stringify(f[1])}`);
  return { squares, black: f[1] === 'b' };
}

function unpack(buf, off) {
  if (buf.length < off + PACKED_SIZE) throw new Error(`packed position: ${buf.length - off} bytes, want ${PACKED_SIZE}`);
  const squares = new Uint8Array(64);
  for (let i = 0; i < 32; i++) {
    const b = buf[off + i];
    for (const [j, v] of [[0, b & 15], [1, b >> 4]]) {
      if (v > 12) throw new Error(`packed position: square ${2 * i + j} holds ${v}`);
      squares[2 * i + j] = v === 0 ? EMPTY : v - 1;
    }
  }
  if ((buf[off + 32] & 0xe0) !== 0 || buf[off + 33] > NO_SQUARE) throw new Error('packed position: bad flags or en passant square');
  return { squares, black: (buf[off + 32] & 1) === 1 };
}

// positionBoard decodes a protocol Position message.
function positionBoard(pos) {
  if (!pos) throw new Error('no position');
  if (pos.packed && pos.packed.length > 0) {
    if (pos.packed.length !== PACKED_SIZE) throw new Error(`packed position: ${pos.packed.length} bytes, want ${PACKED_SIZE}`);
    return unpack(pos.packed, 0);
  }
  return parseFEN(pos.fen);
}

// boards decodes a batch (FENs or packed records, not both).
function boards(fens, packed) {
  fens = fens || [];
  packed = packed || Buffer.alloc(0);
  if (fens.length > 0 && packed.length > 0) throw new Error('both FENs and packed positions given');
  if (packed.length % PACKED_SIZE !== 0) throw new Error(`packed positions: ${packed.length} bytes is not a multiple of ${PACKED_SIZE}`);
  const out = fens.map((f, i) => {
    try { return parseFEN(f); } catch (e) { throw new Error(`position ${i}: ${e.message}`); }
  });
  for (let i = 0; i < packed.length / PACKED_SIZE; i++) {
    try { out.push(unpack(packed, i * PACKED_SIZE)); } catch (e) { throw new Error(`position ${i}: ${e.message}`); }
  }
  return out;
}

// pairs decodes a delta's (piece, square) byte pairs.
function pairs(b) {
  b = b || Buffer.alloc(0);
  if (b.length % 2 !== 0 || b.length > 4) throw new Error(`delta: ${b.length} bytes, want 0, 2 or 4`);
  const out = [];
  for (let i = 0; i < b.length; i += 2) {
    if (b[i] >= EMPTY || b[i + 1] >= 64) throw new Error(`delta: bad piece ${b[i]} or square ${b[i + 1]}`);
    out.push([b[i], b[i + 1]]);
  }
  return out;
}

// The network: whole numbers, as in gofloat/weights.go.
const MATERIAL = [[100, 120], [320, 300], [330, 310], [480, 520], [950, 940], [0, 0]];
const PHASE = [0, 1, 1, 2, 4, 0];

function positional(t, f, r) {
  const df = Math.max(3 - f, f - 4);
  const dr = Math.max(3 - r, r - 4);
  const centre = 6 - df - dr;
  let mg = 0;
  let eg = 0;
  switch (t) {
    case 0:
      mg = 4 * (r - 1);
      if ((f === 3 || f === 4) && (r === 3 || r === 4)) mg += 12;
      eg = 10 * (r - 1);
      break;
    case 1: mg = 5 * centre - 15; eg = 4 * centre - 12; break;
    case 2: mg = 3 * centre - 9; eg = 3 * centre - 9; break;
    case 3:
      if (r === 6) { mg = 20; eg = 10; }
      if (f === 3 || f === 4) mg += 5;
      break;
    case 4: mg = 2 * centre - 6; eg = 3 * centre - 9; break;
    case 5:
      if (r === 0 && (f <= 2 || f >= 6)) mg = 15;
      else if (r >= 2) mg = -25 * (r - 1);
      eg = 8 * centre - 24;
      break;
  }
  return [mg, eg];
}

// WEIGHTS[piece * 64 + square] = [mg, eg, phase].
const WEIGHTS = (() => {
  const w = new Array(12 * 64);
  for (let t = 0; t < 6; t++) {
    for (let s = 0; s < 64; s++) {
      let [mg, eg] = positional(t, s % 8, s >> 3);
      mg += MATERIAL[t][0];
      eg += MATERIAL[t][1];
      w[t * 64 + s] = [mg, eg, PHASE[t]];
      w[(6 + t) * 64 + (s ^ 56)] = [-mg, -eg, PHASE[t]];
    }
  }
  return w;
})();

function refresh(board) {
  const a = [0, 0, 0];
  for (let s = 0; s < 64; s++) {
    const p = board.squares[s];
    if (p < EMPTY) {
      const w = WEIGHTS[p * 64 + s];
      a[0] += w[0]; a[1] += w[1]; a[2] += w[2];
    }
  }
  return a;
}

// head: tapered score for the side to move, rounded to float32 as the Go
// plugin computes it.
function head(a, black) {
  const f = Math.fround;
  const ph = f(Math.min(a[2], 24));
  const v = f(f(f(f(a[0] * ph) + f(a[1] * f(24 - ph))) / 24));
  return f((black ? -v : v) + 10);
}

function evaluate(board) {
  return head(refresh(board), board.black);
}

// Session: the accumulator stack of one search.
class Session {
  constructor() { this.stack = []; }

  newGame(board) { this.stack = [{ acc: refresh(board), black: board.black, squares: board.squares.slice() }]; }

  push(delta) {
    if (this.stack.length === 0) throw new Error('push before new game');
    const top = this.stack[this.stack.length - 1];
    const squares = top.squares.slice();
    const acc = top.acc.slice();
    for (const [p, s] of pairs(delta.removed)) {
      if (squares[s] !== p) throw new Error(`delta removes ${LETTERS[p]} from square ${s}, which holds ${squares[s] < EMPTY ? LETTERS[squares[s]] : 'nothing'}`);
      squares[s] = EMPTY;
      const w = WEIGHTS[p * 64 + s];
      acc[0] -= w[0]; acc[1] -= w[1]; acc[2] -= w[2];
    }
    for (const [p, s] of pairs(delta.added)) {
      if (squares[s] !== EMPTY) throw new Error(`delta adds ${LETTERS[p]} to square ${s}, which holds ${LETTERS[squares[s]]}`);
      squares[s] = p;
      const w = WEIGHTS[p * 64 + s];
      acc[0] += w[0]; acc[1] += w[1]; acc[2] += w[2];
    }
    this.stack.push({ acc, black: !top.black, squares });
  }

  pop() {
    if (this.stack.length < 2) throw new Error('pop at the root');
    this.stack.pop();
  }

  eval() {
    if (this.stack.length === 0) throw new Error('eval before new game');
    const top = this.stack[this.stack.length - 1];
    return head(top.acc, top.black);
  }
}

module.exports = { EMPTY, NO_SQUARE, PACKED_SIZE, parseFEN, unpack, positionBoard, boards, evaluate, Session };
