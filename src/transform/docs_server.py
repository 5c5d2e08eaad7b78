"""Serves the published docs site on loopback until its parent closes stdin (exits, even by SIGKILL).

Usage: docs_server.py <directory> <port>; prints "Serving HTTP on <host> port <port>" once listening.
"""
import functools
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # one stderr line per request is noise in Quarry's log
        pass


def main():
    directory, port = sys.argv[1], int(sys.argv[2])
    handler = functools.partial(QuietHandler, directory=directory)
    with ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        host, bound = server.socket.getsockname()[:2]
        print(f"Serving HTTP on {host} port {bound}", flush=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        sys.stdin.read()  # returns at EOF: the parent is gone
        server.shutdown()


if __name__ == "__main__":
    main()
