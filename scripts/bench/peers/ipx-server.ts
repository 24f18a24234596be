/**
 * ipx as the peer of our renditions (Peer-3), serving the images of DIR:
 *   tsx scripts/bench/peers/ipx-server.ts PORT DIR
 * GET /extract_X_Y_W_H,w_800,f_webp/photo.jpg crops, resizes and encodes on every request: ipx keeps
 * no rendition cache of its own (it leaves that to an HTTP cache in front of it).
 */
import { createServer } from 'node:http';
import { createIPX, createIPXNodeServer, ipxFSStorage } from 'ipx';

const [port, dir] = process.argv.slice(2);
const ipx = createIPX({ storage: ipxFSStorage({ dir: dir! }) });
createServer(createIPXNodeServer(ipx)).listen(Number(port), '127.0.0.1');
