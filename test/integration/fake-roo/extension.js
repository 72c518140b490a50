// Test-only extension: its exports have Roo Code's API shape (found by shape, not by id) plus
// `__test` (replay a recorded stream, the calls received, reset). See fakeRooApi.js.
"use strict";
const { FakeRooApi } = require("./fakeRooApi");

function activate() {
  return new FakeRooApi();
}

function deactivate() {}

module.exports = { activate, deactivate };
