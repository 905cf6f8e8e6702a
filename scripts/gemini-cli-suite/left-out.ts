// Copied into the suite's integration-tests/ and run before each of its
// files (vitest.gemini-ls.config.ts): a test that runs a terminal
// (TestRig.runInteractive, through node-pty) is skipped when it starts
// one, so that the other tests of its file run. Both binaries skip the
// same tests, which the comparison leaves out.
import { getCurrentTest } from '@vitest/runner';
import { TestRig } from './test-helper.js';

TestRig.prototype.runInteractive = async function () {
  getCurrentTest()?.context.skip();
  throw new Error('an interactive test is left out of this run');
};
