import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay between the platform and a server (Redis, PostgreSQL, S3), so that a test can take
 * the server away the way a network does: `cut` closes every connection and refuses new ones;
 * `stall` keeps them open but lets nothing through (a server that hangs, or packets that vanish);
 * `reset` answers every connection, open or new, with a TCP reset (a server restarting, a
 * firewall); `restore` lets connections through again.
 */
export interface TcpProxy {
  port: number;
  /** Bytes relayed from clients to the server so far (what an upload really sent). */
  bytesUp(): number;
  cut(): Promise<void>;
  stall(): void;
  reset(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let stalled = false;
  let resetting = false;
  let bytesUp = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (resetting) return client.resetAndDestroy();
    if (stalled) return client.pause();
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.on('data', (chunk: Buffer) => {
      bytesUp += chunk.length;
    });
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  await listen(0);
  const port = (server.address() as { port: number }).port;
  return {
    port,
    bytesUp: () => bytesUp,
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      dropAll();
      await closed;
    },
    stall: () => {
      stalled = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    reset: () => {
      resetting = true;
      for (const socket of sockets) socket.resetAndDestroy();
    },
    restore: async () => {
      stalled = false;
      resetting = false;
      dropAll();
      if (!server.listening) await listen(port);
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      dropAll();
      await closed;
    },
  };
}
