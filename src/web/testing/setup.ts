import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// Lazily loaded parts (the drop area) take a while to arrive the first time on a busy machine: waits
// for what a person would see get ten seconds, not Testing Library's one.
configure({ asyncUtilTimeout: 10_000 });

// Each test starts with an empty page and empty browser storage, as a fresh tab would.
afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});
