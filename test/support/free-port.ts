// A TCP port that is free right now: bind a server on port 0, read the port the kernel chose,
// close it. Tests pass the port to the process they start instead of using a fixed one.
import net from 'node:net';

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error(`unexpected server address ${String(address)}`));
        return;
      }
      const { port } = address;
      server.close((error) => (error ? reject(error) : resolve(port)));
    });
  });
}
