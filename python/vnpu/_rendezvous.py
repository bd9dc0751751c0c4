"""The nodes' rendezvous of ``vnpu.run --nnodes N`` without ``--hosts``.

Node 0 listens on master_addr:master_port; every other node connects, says who it is (node rank,
host name, nnodes, nproc_per_node) and waits. When all have come, node 0 knows the host list and
starts every rank through mpirun; at the end it sends each node the job's exit code. Only these
few lines of JSON go over the connection: the collectives run on Open MPI, not here.
"""

import json
import socket
import time

_VERSION = 1


def _send(sock, message):
    sock.sendall((json.dumps(message) + "\n").encode())


def _receive(sock):
    """One JSON line, or None when the peer closed the connection first."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(4096)
        if not chunk:
            return None
        data += chunk
    return json.loads(data)


class Rendezvous:
    """Node 0's side: gathers the other nodes, then tells them how the job ended."""

    def __init__(self, addr, port, nnodes, nproc, timeout_s):
        self.nnodes, self.nproc, self.timeout_s = nnodes, nproc, timeout_s
        self._server = socket.create_server((addr, port), backlog=max(nnodes, 8))
        self._peers = {}

    def gather(self, own_host):
        """The hosts by node rank (own_host first); raises TimeoutError if a node does not come in time."""
        hosts = {0: own_host}
        deadline = time.monotonic() + self.timeout_s
        while len(hosts) < self.nnodes:
            left = deadline - time.monotonic()
            if left <= 0:
                missing = sorted(set(range(self.nnodes)) - set(hosts))
                raise TimeoutError(f"nodes {missing} did not join within {self.timeout_s:g} s")
            self._server.settimeout(left)
            try:
                conn, _ = self._server.accept()
            except socket.timeout:
                continue
            conn.settimeout(max(left, 1.0))
            try:
                hello = _receive(conn)
            except (OSError, ValueError):
                hello = None
            problem = self._check(hello, hosts)
            if problem:
                try:
                    _send(conn, {"error": problem})
                except OSError:
                    pass
                conn.close()
                continue
            conn.settimeout(None)
            hosts[hello["node_rank"]] = hello["host"]
            self._peers[hello["node_rank"]] = conn
        return [hosts[k] for k in range(self.nnodes)]

    def _check(self, hello, hosts):
        if not isinstance(hello, dict) or hello.get("version") != _VERSION:
            return "not a vnpu.run rendezvous message (or another version)"
        if hello.get("nnodes") != self.nnodes or hello.get("nproc") != self.nproc:
            return (f"node 0 runs --nnodes {self.nnodes} --nproc_per_node {self.nproc}, this node "
                    f"--nnodes {hello.get('nnodes')} --nproc_per_node {hello.get('nproc')}")
        k = hello.get("node_rank")
        if not isinstance(k, int) or not 0 < k < self.nnodes or k in hosts:
            return f"--node_rank {k} is out of range or already taken"
        if not isinstance(hello.get("host"), str) or not hello["host"]:
            return "no host name"
        return None

    def finish(self, exit_code):
        """Tells every node the job's exit code and closes the rendezvous."""
        for conn in self._peers.values():
            try:
                _send(conn, {"exit_code": exit_code})
            except OSError:
                pass
            conn.close()
        self._peers.clear()
        self._server.close()


def join(addr, port, node_rank, nnodes, nproc, host, timeout_s):
    """A node other than 0: joins node 0's rendezvous and waits for the job's end.

    Returns the job's exit code; raises RuntimeError when node 0 refuses this node or goes away, and
    TimeoutError when node 0 cannot be reached within timeout_s.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            sock = socket.create_connection((addr, port), timeout=max(deadline - time.monotonic(), 0.1))
            break
        except OSError as exc:
            # Node 0 may start later than this node: try again until the deadline.
            if time.monotonic() >= deadline:
                raise TimeoutError(f"node 0 at {addr}:{port} not reachable within {timeout_s:g} s: {exc}") from exc
            time.sleep(0.5)
    with sock:
        _send(sock, {"version": _VERSION, "node_rank": node_rank, "nnodes": nnodes, "nproc": nproc, "host": host})
        sock.settimeout(None)  # the job runs as long as it runs
        reply = _receive(sock)
    if reply is None:
        raise RuntimeError(f"node 0 at {addr}:{port} closed the rendezvous without an exit code")
    if "error" in reply:
        raise RuntimeError(f"node 0 refused this node: {reply['error']}")
    return int(reply["exit_code"])
