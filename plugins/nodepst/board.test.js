'use strict';
// Unit tests of the position decoding and the incremental evaluator
// (node --test). The protocol is tested, with the Go plugins, by the
// conformance suite in engine/eval/plugin.
const test = require('node:test');
const assert = require('node:assert');
const board = require('./board');

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

test('parseFEN rejects bad input', () => {
  for (const fen of ['', 'x', '8/8/8/8/8/8/8/8 w - -', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1', START.replace(' w ', ' x ')]) {
    assert.throws(() => board.parseFEN(fen), undefined, fen);
  }
});

test('start position is the side-to-move bonus only', () => {
  assert.strictEqual(board.evaluate(board.parseFEN(START)), 10);
});

test('unpack of a packed start position equals the FEN', () => {
  const b = board.parseFEN(START);
  const buf = Buffer.alloc(board.PACKED_SIZE);
  for (let s = 0; s < 64; s++) {
    const v = b.squares[s] === board.EMPTY ? 0 : b.squares[s] + 1;
    buf[s >> 1] |= v << (4 * (s & 1));
  }
  buf[33] = board.NO_SQUARE;
  assert.deepStrictEqual(board.unpack(buf, 0), b);
});

test('session push/pop agrees with a fresh evaluation', () => {
  const s = new board.Session();
  s.newGame(board.parseFEN(START));
  // e2e4: white pawn (0) from e2 (12) to e4 (28).
  s.push({ removed: Buffer.from([0, 12]), added: Buffer.from([0, 28]) });
  const after = board.parseFEN('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1');
  assert.strictEqual(s.eval(), board.evaluate(after));
  s.pop();
  assert.strictEqual(s.eval(), 10);
  assert.throws(() => s.pop());
  assert.throws(() => s.push({ removed: Buffer.from([0, 20]), added: Buffer.alloc(0) }));
});
