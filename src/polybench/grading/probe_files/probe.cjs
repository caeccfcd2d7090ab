// The harness's probe in every Node process of a test run (preloaded with
// NODE_OPTIONS=--require). Before code under test runs, it notes the test frameworks'
// own functions: node:assert at start-up; mocha's runner when the first file of the
// repository is compiled; in each jest test context, its globals, expect and the built-in
// matchers just before the test file runs. At the end (a new jest context, or the process's exit) it
// compares them with what is there and writes what was replaced as JSON into
// $POLYBENCH_PROBE_OUT. It prints nothing and never throws.
'use strict';

(() => {
  const out = process.env.POLYBENCH_PROBE_OUT;
  if (!out) return;
  const fs = require('fs');
  const path = require('path');
  const vm = require('vm');
  const Module = require('module');
  const root = (process.env.POLYBENCH_PROBE_ROOT || '/testbed').replace(/\/$/, '') + '/';
  const snapshots = [];
  const replaced = [];
  const record = { pid: process.pid, language: 'node', snapshot: false, watched: 0, replaced };

  const members = (label, target) => {
    const found = new Map();
    if (!target || (typeof target !== 'object' && typeof target !== 'function')) return found;
    for (const key of Object.getOwnPropertyNames(target)) {
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      if (!descriptor) continue;
      const value = 'value' in descriptor ? descriptor.value : descriptor.get;
      if (typeof value === 'function') found.set(`${label}.${key}`, [target, key, value]);
    }
    return found;
  };
  const take = (label, target) => {
    const found = members(label, target);
    if (found.size) {
      snapshots.push(found);
      record.snapshot = true;
      record.watched += found.size;
    }
  };
  const compare = (found) => {
    for (const [name, [target, key, before]] of found) {
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      const now = descriptor && ('value' in descriptor ? descriptor.value : descriptor.get);
      if (now !== before) replaced.push({ name, by: null });
    }
  };

  // node:assert, before any code runs.
  for (const name of ['assert', 'assert/strict']) {
    try {
      const target = require(name);
      take(`node:${name}`, target);
    } catch (error) {}
  }

  // mocha: its runner's prototypes, once the first file of the repository is compiled.
  const mochaParts = ['runner', 'runnable', 'test', 'hook', 'suite', 'reporters/base'];
  const compile = Module.prototype._compile;
  let mochaTaken = false;
  Module.prototype._compile = function (content, filename) {
    if (!mochaTaken && typeof filename === 'string' && filename.startsWith(root) && !filename.includes('/node_modules/')) {
      mochaTaken = true;
      try {
        for (const key of Object.keys(require.cache)) {
          const part = mochaParts.find((p) => key.endsWith(`/mocha/lib/${p}.js`));
          const exported = part && require.cache[key].exports;
          if (exported) take(`mocha.${part}`, exported.prototype || exported);
        }
      } catch (error) {}
    }
    return compile.call(this, content, filename);
  };

  // jest: each test file's context, just before the test file itself runs.
  const jestGlobals = ['expect', 'test', 'it', 'describe', 'beforeEach', 'afterEach', 'beforeAll', 'afterAll'];
  const matchersKey = Symbol.for('$$jest-matchers-object');
  let jestContext = null;
  let jestFound = null;
  const runInContext = vm.Script.prototype.runInContext;
  vm.Script.prototype.runInContext = function (context, options) {
    try {
      const filename = options && options.filename;
      const state = context && context[matchersKey] && context[matchersKey].state;
      if (filename && state && filename === state.testPath && context !== jestContext) {
        if (jestFound) compare(jestFound);
        jestContext = context;
        jestFound = new Map();
        for (const name of jestGlobals) {
          if (typeof context[name] === 'function') jestFound.set(`jest.${name}`, [context, name, context[name]]);
        }
        for (const [key, value] of members('jest.expect', context.expect)) jestFound.set(key, value);
        for (const [key, value] of members('jest.matchers', context[matchersKey].matchers)) jestFound.set(key, value);
        record.snapshot = true;
        record.watched += jestFound.size;
      }
    } catch (error) {}
    return runInContext.call(this, context, options);
  };

  const report = () => {
    try {
      if (jestFound) compare(jestFound);
      jestFound = null;
      for (const found of snapshots) compare(found);
      snapshots.length = 0;
      fs.writeFileSync(path.join(out, `node-${process.pid}.json`), JSON.stringify(record) + '\n');
    } catch (error) {}
  };
  process.on('exit', report);
})();
