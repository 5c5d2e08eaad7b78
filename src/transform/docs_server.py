"""Serves the published docs site on a Unix socket until its parent closes stdin (exits, even by SIGKILL).

Usage: docs_server.py <directory> <socket path>; prints "Serving HTTP on unix socket <path>" once listening.
The socket is created mode 0600: only the service user can connect, so no other local user reads the
project's manifest.json through it (a loopback port is open to every local user).
"""
import functools
import os
import socketserver
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # one stderr line per request is noise in Quarry's log
        pass

    def address_string(self):  # a Unix socket's peer has no address
        return "local"


class UnixHTTPServer(ThreadingHTTPServer):
    address_family = socketserver.socket.AF_UNIX

    def server_bind(self):
        # HTTPServer.server_bind looks up a host name and port, which a socket path has not.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "localhost", 0


def main():
    directory, socket_path = sys.argv[1], sys.argv[2]
    if os.path.exists(socket_path):
        os.unlink(socket_path)  # left by a server that was killed
    handler = functools.partial(QuietHandler, directory=directory)
    previous = os.umask(0o177)
    try:
        server = UnixHTTPServer(socket_path, handler)
    finally:
        os.umask(previous)
    os.chmod(socket_path, 0o600)
    with server:
        print(f"Serving HTTP on unix socket {socket_path}", flush=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        sys.stdin.read()  # returns at EOF: the parent is gone
        server.shutdown()
    os.unlink(socket_path)


if __name__ == "__main__":
    main()
