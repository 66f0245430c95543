// The terminals' sockets that came through the gate, each with the login
// whose cookie let it in. The gate judges a WebSocket once, when it opens;
// a socket then lives for as long as the browser keeps the page. So signing
// a browser out (`tend remote revoke`), turning remote access off, or taking
// its Host off the list ends its open sockets too, not only its next request.
import type { Duplex } from 'node:stream';

interface Tracked {
  loginId: string;
  host: string;
}

export class RemoteSockets {
  private readonly sockets = new Map<Duplex, Tracked>();

  track(socket: Duplex, loginId: string, host: string): void {
    this.sockets.set(socket, { loginId, host });
    socket.once('close', () => this.sockets.delete(socket));
  }

  /** Ends the sockets of one login, or of every login ("all"); how many were ended. */
  cutLogin(loginId: string): number {
    return this.cut((t) => loginId === 'all' || t.loginId === loginId);
  }

  /** Ends every socket whose Host `stillAllowed` no longer lets in (all of them when remote access is off). */
  cutWhere(refused: (host: string) => boolean): number {
    return this.cut((t) => refused(t.host));
  }

  get count(): number {
    return this.sockets.size;
  }

  private cut(match: (t: Tracked) => boolean): number {
    let n = 0;
    for (const [socket, tracked] of this.sockets) {
      if (!match(tracked)) continue;
      this.sockets.delete(socket);
      socket.destroy();
      n++;
    }
    return n;
  }
}
