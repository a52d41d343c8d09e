#!/usr/bin/env node
'use strict';
// nodepst: an nnuelab evaluator plugin in Node.js, proving that the plugin
// protocol is language-neutral. go-plugin's contract for non-Go plugins:
// check the magic cookie, serve the gRPC services plus grpc.health.v1.Health
// ("plugin" SERVING) on a local address, and print the handshake line
// CORE-PROTOCOL|APP-PROTOCOL|tcp|ADDR|grpc on standard output.

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const board = require('./board');

const CORE_PROTOCOL = 1;
const APP_PROTOCOL = 1; // plugins/sdk ProtocolVersion
const COOKIE_KEY = 'NNUELAB_PLUGIN';
const COOKIE_VALUE = 'd7d1f1b4-nnuelab-evaluator-plugin';

if (process.env[COOKIE_KEY] !== COOKIE_VALUE) {
  process.stderr.write('This is an nnuelab evaluator plugin: the engine starts it (setoption name Arch value plugin:nodepst).\n');
  process.exit(1);
}
const offered = (process.env.PLUGIN_PROTOCOL_VERSIONS || String(APP_PROTOCOL)).split(',').map(Number);
if (!offered.includes(APP_PROTOCOL)) {
  process.stderr.write(`nodepst speaks protocol ${APP_PROTOCOL}, the host offers ${offered.join(',')}\n`);
  process.exit(1);
}

const loadOpts = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true };
// The protocol definition: plugins/sdk/proto, or NNUELAB_PROTO_DIR.
const protoDir = process.env.NNUELAB_PROTO_DIR || path.join(__dirname, '..', 'sdk', 'proto');
const api = grpc.loadPackageDefinition(protoLoader.loadSync('nnuelab/plugin/v1/plugin.proto', { ...loadOpts, includeDirs: [protoDir] })).nnuelab.plugin.v1;
const health = grpc.loadPackageDefinition(protoLoader.loadSync(path.join(__dirname, 'proto', 'health.proto'), loadOpts)).grpc.health.v1;
const controller = grpc.loadPackageDefinition(protoLoader.loadSync(path.join(__dirname, 'proto', 'controller.proto'), loadOpts)).plugin;

const description = {
  name: 'nodepst',
  version: '1.0',
  summary: 'the gofloat piece-square network in Node.js (@grpc/grpc-js)',
  units: 'UNITS_CENTIPAWNS',
  point_of_view: 'POINT_OF_VIEW_SIDE_TO_MOVE',
  stateless: false,
  max_batch: 0,
  arch_toml: '',
};

function invalid(err) {
  return { code: grpc.status.INVALID_ARGUMENT, details: err.message };
}

const evaluator = {
  Describe(_call, cb) { cb(null, description); },

  EvaluateBatch(call, cb) {
    let bs;
    try {
      bs = board.boards(call.request.fens, call.request.packed);
    } catch (e) {
      cb(invalid(e));
      return;
    }
    cb(null, { scores: bs.map(board.evaluate) });
  },

  Session(call) {
    const s = new board.Session();
    let n = 0;
    let done = false;
    call.on('data', (req) => {
      if (done) return;
      try {
        (req.ops || []).forEach((op, i) => {
          try {
            switch (op.op) {
              case 'new_game': s.newGame(board.positionBoard(op.new_game.position)); break;
              case 'push': s.push(op.push); break;
              case 'pop': s.pop(); break;
              default: throw new Error('empty op');
            }
          } catch (e) {
            throw new Error(`op ${i}: ${e.message}`);
          }
        });
        call.write({ score: req.eval ? s.eval() : 0 });
      } catch (e) {
        done = true;
        call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: `request ${n}: ${e.message}` });
        return;
      }
      n++;
    });
    call.on('end', () => { if (!done) call.end(); });
    call.on('error', () => {});
  },
};

const server = new grpc.Server({
  'grpc.max_receive_message_length': 1 << 30,
  'grpc.max_send_message_length': 1 << 30,
});
server.addService(api.Evaluator.service, evaluator);
server.addService(health.Health.service, {
  Check(call, cb) {
    const svc = call.request.service;
    if (svc === '' || svc === 'plugin') cb(null, { status: 'SERVING' });
    else cb({ code: grpc.status.NOT_FOUND, details: `unknown service ${svc}` });
  },
});
server.addService(controller.GRPCController.service, {
  Shutdown(_call, cb) {
    cb(null, {});
    setImmediate(() => server.tryShutdown(() => process.exit(0)));
    setTimeout(() => process.exit(0), 500).unref();
  },
});

server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    process.stderr.write(`nodepst: listen: ${err.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${CORE_PROTOCOL}|${APP_PROTOCOL}|tcp|127.0.0.1:${port}|grpc\n`);
});

// Exit when the host dies without ending us.
const ppid = process.ppid;
setInterval(() => { if (process.ppid !== ppid) process.exit(0); }, 500);
