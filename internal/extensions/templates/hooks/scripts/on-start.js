/**
 * @license
 * Copyright 2026 Google LLC
 * SPDX-License-Identifier: Apache-2.0
 */
console.log(
  'Session Started! This is running from a script in the hooks-example extension.',
);
