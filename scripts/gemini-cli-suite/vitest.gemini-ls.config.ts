// The suite's own vitest config, with left-out.ts run before each file.
// Copied next to it (integration-tests/) by scripts/gemini-cli-suite.sh.
import { defineConfig, mergeConfig } from 'vitest/config';
import suite from './vitest.config.js';

export default mergeConfig(suite, defineConfig({ test: { setupFiles: ['./left-out.ts'] } }));
