/**
 * @tus/server with @tus/file-store as the peer of our uploads (Peer-2), as its README sets it up:
 *   tsx scripts/bench/peers/tus-server.ts PORT DIR
 * @tus/file-store writes with a plain write stream and does not fsync (2.1.1).
 */
import { createServer } from 'node:http';
import { FileStore } from '@tus/file-store';
import { Server } from '@tus/server';

const [port, dir] = process.argv.slice(2);
const tus = new Server({ path: '/files', datastore: new FileStore({ directory: dir! }) });
createServer((req, res) => void tus.handle(req, res)).listen(Number(port), '127.0.0.1');
