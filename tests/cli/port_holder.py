"""Hold a TCP port like a forgotten server: ``python port_holder.py PORT`` prints the port."""

import socket
import sys
import time

sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", int(sys.argv[1])))
sock.listen()
print(sock.getsockname()[1], flush=True)
time.sleep(600)
