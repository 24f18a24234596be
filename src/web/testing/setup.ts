import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';
import { keptUploads } from '../lib/kept-uploads';

// Lazily loaded parts (the drop area) take a while to arrive the first time on a busy machine: waits
// for what a person would see get ten seconds, not Testing Library's one.
configure({ asyncUtilTimeout: 10_000 });

// Each test starts with an empty page and empty browser storage, as a fresh tab would (the uploads
// kept through a page's end included: jsdom has no IndexedDB, so they live in this module).
afterEach(async () => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
  await keptUploads.clear();
});

// jsdom has <dialog> but not its modal methods (jsdom 26). What the app's Dialog needs of them: open
// shows the dialog's contents to queries by role, close hides them again. Inertness of the rest of the
// page and Escape are the browser's, and the end-to-end tests meet them in Chromium.
if (typeof HTMLDialogElement !== 'undefined' && !HTMLDialogElement.prototype.showModal) {
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
    this.open = true;
  };
  HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) {
    if (!this.open) return;
    this.open = false;
    this.dispatchEvent(new Event('close'));
  };
}
