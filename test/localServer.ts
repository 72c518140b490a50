/**
 * The fake models' HTTP plumbing, shared: a server on 127.0.0.1 at a free port (never another
 * address: tests send traffic to this machine only), and a close that does not wait for agents'
 * keep-alive connections.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";

export async function listenLocal(handle: http.RequestListener): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

export async function closeLocal(server: http.Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The whole request body as text, then `handle` with it. */
export function withBody(handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): http.RequestListener {
  return (req, res) => {
    let body = "";
    req.on("data", (d) => { body += d; });
    req.on("end", () => handle(req, res, body));
  };
}
