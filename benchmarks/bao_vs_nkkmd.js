"use strict";
// The nkkmd side of benchmarks/bao_vs_nkkmd.py: loads the user's copy of nkkmd's engine.js
// (github.com/nkkmd/bao-la-kiswahili-game, public/engine.js; its code is not part of ubao) and
// answers one JSON request per line on stdin with one JSON line on stdout:
//   {"initial": true}  -> {"state": initialState()}
//   {"state": S}       -> {"moves": [{"move": M, "state": S'} | {"move": M, "error": text}]}
// where the moves are moveVariants(S) (namua captures expanded into houseChoice stop/use) and
// S' is applyMove(S, M).state.
//
//   node benchmarks/bao_vs_nkkmd.js PATH/TO/engine.js

const path = require("path");
const readline = require("readline");

const engine = require(path.resolve(process.argv[2]));

function answer(request) {
  if (request.initial) return { state: engine.initialState() };
  const state = request.state;
  const moves = engine.moveVariants(state).map((move) => {
    try {
      return { move, state: engine.applyMove(state, move).state };
    } catch (error) {
      return { move, error: String(error && error.message ? error.message : error) };
    }
  });
  return { moves };
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  let reply;
  try {
    reply = answer(JSON.parse(line));
  } catch (error) {
    reply = { failure: String(error && error.stack ? error.stack : error) };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
});
