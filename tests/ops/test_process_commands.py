"""docker-compose.yml's process commands, run natively (there is no Docker engine here).

migrate, web (gunicorn: the compose command line, only its address changed), stream (uvicorn,
likewise), the two Celery workers (the default queue's and the hints queue's) and beat, and
nginx with the templates of deploy/nginx/ rendered from the compose proxy's environment,
against PostgreSQL and Redis, with the compose app environment and a real host name in
ALLOWED_HOSTS. Through the proxy: the health check, a live stream that gets each event at once
(unbuffered), a page served without a redirect to an https nobody listens on, a static file
served by nginx itself; and 50 slow-header connections do not delay ``/healthz/`` beyond a
second, while 8 of them sent straight to gunicorn leave it unanswerable (which is why the proxy
is there); bodies over the app's limit get a clean 413 through the proxy and from gunicorn
directly, never a 502 or a reset. With TLS=on: HTTPS, and plain HTTP redirecting to it.

Skipped on a laptop without PostgreSQL, Redis or nginx; in CI (CI=true) it fails instead.
"""

from __future__ import annotations

import http.client
import os
import pwd
import random
import select
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings

from tests.conftest import require_service
from tests.ops import native
from tests.ops.compose import (
    ROOT,
    operator_shell,
    render_nginx,
    service,
    service_env,
    service_healthcheck,
)
from tests.workers.harness import Process, free_port, running, wait_until

pytestmark = [pytest.mark.services]

BIN = Path(sys.executable).parent
HOST = "scorpion.example"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def database_url(name: str) -> str:
    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{db['USER']}{password}@{host}:{port}/{name}"


@dataclass
class Database:
    name: str

    def _admin(self, statement: str) -> None:
        import psycopg
        from psycopg import sql

        db = settings.DATABASES["default"]
        with psycopg.connect(
            host=db.get("HOST") or "127.0.0.1",
            port=db.get("PORT") or 5432,
            user=db["USER"],
            password=db.get("PASSWORD") or None,
            dbname="postgres",
            autocommit=True,
        ) as connection:
            connection.execute(sql.SQL(statement).format(sql.Identifier(self.name)))

    def create(self) -> None:
        self.drop()
        self._admin("CREATE DATABASE {}")

    def drop(self) -> None:
        self._admin("DROP DATABASE IF EXISTS {} WITH (FORCE)")


def app_environment(url: str, static_root: Path) -> dict[str, str]:
    """The compose app environment as compose gives it (the operator set a real host name),
    with only the addresses of PostgreSQL and Redis changed to this machine's."""
    compose_env = service_env("web", operator_shell(ALLOWED_HOSTS=HOST))
    leaking = {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL"}
    env = {
        name: value
        for name, value in os.environ.items()
        # The test process's own settings must not leak into the processes under test.
        if name not in leaking and name not in compose_env
        if not name.startswith(("SECURE_", "SESSION_", "CSRF_", "DJANGO_", "PYTEST_"))
    }
    env.update(compose_env)
    env.update(
        {
            "DATABASE_URL": url,
            "REDIS_URL": str(settings.REDIS_URL),
            "STATIC_ROOT": str(static_root),
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def proxy_variables(
    prefix: Path, upstream: str, stream_upstream: str, **changes: str
) -> dict[str, str]:
    """The compose proxy's environment, with what is Docker's (addresses, paths) made local."""
    variables = service_env("proxy", operator_shell())
    variables.update(
        {
            "SCORPION_UPSTREAM": upstream,
            "SCORPION_STREAM_UPSTREAM": stream_upstream,
            "HTTP_LISTEN": f"127.0.0.1:{free_port()}",
            "HTTPS_LISTEN": f"127.0.0.1:{free_port()}",
            "STATIC_ROOT": str(prefix.parent / "static"),
            "NGINX_TEMP": str(prefix / "temp"),
            "TLS_CERTIFICATE": str(prefix / "cert.pem"),
            "TLS_CERTIFICATE_KEY": str(prefix / "key.pem"),
        }
    )
    variables.update(changes)
    return variables


def nginx_command(prefix: Path, conf: Path) -> list[str]:
    """nginx as the current user, its pid and temporary files in ``prefix``."""
    directives = f"daemon off; pid {prefix / 'nginx.pid'};"
    if os.geteuid() == 0:
        # Run as root, nginx would hand its workers to `nobody`, who cannot read the test's
        # private folders: keep them as the current user, as a user's nginx would be.
        directives += f" user {pwd.getpwuid(os.geteuid()).pw_name};"
    return [NGINX, "-p", str(prefix), "-c", str(conf), "-e", "stderr", "-g", directives]


def port_of(listen: str) -> int:
    return int(listen.rsplit(":", 1)[1])


def wait_listening(port: int, process: Process) -> None:
    def up() -> bool:
        assert process.popen.poll() is None, f"{process.name} exited:\n{process.output[-3000:]}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        except OSError:
            return False
        return True

    wait_until(up, 30, lambda: f"{process.name} never listened on {port}:\n{process.output}")


@dataclass
class Stack:
    env: dict[str, str]
    static_root: Path
    web: Process
    web_port: int
    stream: Process
    stream_port: int
    worker: Process
    worker_hints: Process
    beat: Process
    proxy: Process
    proxy_port: int
    tmp: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.proxy_port}"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    require_service("PostgreSQL", settings.DATABASES["default"]["ENGINE"].endswith("postgresql"))
    require_service("Redis", bool(settings.REDIS_URL))
    require_service("nginx (apt-get install nginx)", Path(NGINX).exists())
    from scorpion_site.celery import app as celery_app

    celery_app.control.purge()  # tasks left by other tests name rows of another database
    tmp = tmp_path_factory.mktemp("ops")
    base_name = str(settings.DATABASES["default"]["NAME"]).removeprefix("test_")
    database = Database(f"{base_name}_ops")
    database.create()
    static_root = tmp / "static"
    env = app_environment(database_url(database.name), static_root)
    with ExitStack() as stack:
        stack.callback(database.drop)
        # migrate: the compose one-shot service, on a database of its own (a real first run).
        migrate = native.migrate(env)
        assert "Applying games." in migrate.stdout
        # The Dockerfile's build step that the proxy image takes its static files from.
        assert "python manage.py collectstatic --noinput" in (ROOT / "Dockerfile").read_text()
        native.succeeds([sys.executable, "manage.py", "collectstatic", "--noinput"], env)

        assert "0.0.0.0:8000" in service("web")["command"]
        web, web_port = stack.enter_context(native.web(native.web_command(), env, HOST))

        # stream: uvicorn, the compose command line with only its address changed.
        stream_command = [str(part) for part in service("stream")["command"]]
        stream_port = free_port()
        stream_command[stream_command.index("--host") + 1] = "127.0.0.1"
        stream_command[stream_command.index("--port") + 1] = str(stream_port)
        streams = stack.enter_context(running("stream", stream_command, env))
        wait_until(
            lambda: answers(f"http://127.0.0.1:{stream_port}/healthz/"),
            120,
            lambda: f"uvicorn never answered:\n{streams.output[-3000:]}",
        )

        worker = stack.enter_context(running("worker", service("worker")["command"], env))
        worker_hints = stack.enter_context(
            running("worker-hints", service("worker-hints")["command"], env)
        )
        beat_command = [
            part.replace("/tmp/celerybeat-schedule", str(tmp / "beat-schedule"))
            for part in service("beat")["command"]
        ]
        beat = stack.enter_context(running("beat", beat_command, env))

        prefix = tmp / "nginx"
        variables = proxy_variables(prefix, f"127.0.0.1:{web_port}", f"127.0.0.1:{stream_port}")
        (prefix / "temp").mkdir(parents=True)
        conf = render_nginx(prefix, variables)
        nginx = nginx_command(prefix, conf)
        proxy = stack.enter_context(running("nginx", nginx, os.environ.copy()))
        proxy_port = port_of(variables["HTTP_LISTEN"])
        wait_listening(proxy_port, proxy)
        yield Stack(
            env,
            static_root,
            web,
            web_port,
            streams,
            stream_port,
            worker,
            worker_hints,
            beat,
            proxy,
            proxy_port,
            tmp,
        )


def answers(url: str) -> bool:
    try:
        return get(url, timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def get(url: str, **kwargs: Any) -> httpx.Response:
    headers = {"Host": HOST, **kwargs.pop("headers", {})}
    return httpx.get(url, headers=headers, timeout=kwargs.pop("timeout", 10), **kwargs)


def test_health_through_the_proxy_with_a_real_host_name(stack: Stack) -> None:
    health = get(f"{stack.base}/healthz/")
    assert health.status_code == 200, health.text
    body = health.json()
    assert body["status"] == "ok", body
    assert body["database"]["ok"] is True
    assert body["redis"]["ok"] is True


def test_the_compose_healthchecks_pass_with_a_real_host_name(stack: Stack) -> None:
    """The web check calls 127.0.0.1, no host of ALLOWED_HOSTS: it must pass all the same."""
    test = service("web")["healthcheck"]["test"]
    assert test[0] == "CMD"
    command = [part.replace("127.0.0.1:8000", f"127.0.0.1:{stack.web_port}") for part in test[1:]]
    check = subprocess.run(command, env=stack.env, capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stderr
    for name, worker in (("worker", stack.worker), ("worker-hints", stack.worker_hints)):
        worker.wait_for_output("ready.")
        ping = subprocess.run(
            service_healthcheck(name, operator_shell()),
            shell=True,
            env=stack.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert ping.returncode == 0, ping.stdout + ping.stderr
    stack.beat.wait_for_output("beat: Starting")
    assert stack.beat.popen.poll() is None


def test_the_beat_and_proxy_healthchecks_pass(stack: Stack) -> None:
    """Beat's check reads its tick from Redis; the proxy's goes through nginx to web."""
    stack.beat.wait_for_output("beat: Starting")
    beat_test = service("beat")["healthcheck"]["test"]
    assert beat_test[0] == "CMD"
    wait_until(
        lambda: subprocess.run(beat_test[1:], env=stack.env, cwd=ROOT, check=False).returncode == 0,
        60,
        lambda: f"beat's health check never passed:\n{stack.beat.output[-3000:]}",
    )
    proxy_env = {**os.environ, "HTTP_LISTEN": f"127.0.0.1:{stack.proxy_port}"}
    check = subprocess.run(
        service_healthcheck("proxy", operator_shell()),
        shell=True,
        env=proxy_env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_stream_healthcheck_passes(stack: Stack) -> None:
    test = service("stream")["healthcheck"]["test"]
    assert test[0] == "CMD"
    command = [
        part.replace("127.0.0.1:8001", f"127.0.0.1:{stack.stream_port}") for part in test[1:]
    ]
    check = subprocess.run(command, env=stack.env, capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stderr


def test_live_streams_pass_through_the_proxy_at_once(stack: Stack) -> None:
    """A command through the proxy (gunicorn) reaches a stream held through the proxy
    (uvicorn): each event arrives while the stream is still open, not buffered by nginx."""
    client = httpx.Client(base_url=stack.base, headers={"Host": HOST}, timeout=10)
    signup = client.post(
        "/_allauth/app/v1/auth/signup",
        json={"email": "ops-stream@example.com", "password": "a long password 63"},
    )
    assert signup.status_code == 200, signup.text
    client.headers["X-Session-Token"] = signup.json()["meta"]["session_token"]
    game = client.post("/api/v1/games/", json={"seed": 42}).json()
    with client.stream("GET", f"/api/v1/games/{game['id']}/stream/") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert "content-encoding" not in response.headers
        seen: list[str] = []
        lines = (seen.append(line) or line for line in response.iter_lines())
        assert next(line for line in lines if line.startswith("event:")) == "event: resync"
        dealt = client.post(f"/api/v1/games/{game['id']}/commands/", json={"type": "deal"})
        assert dealt.status_code == 200, dealt.text
        assert next(line for line in lines if line.startswith("id:")) == "id: 0"
        assert next(line for line in lines if line.startswith("id:")) == "id: 1"
        assert next(lines) == "event: command"
        # At once: before the stream's first keep-alive, which 15 s of silence would send
        # (STREAM_HEARTBEAT_SECONDS); buffered by nginx, it would wait for the stream's end.
        assert ": keep-alive" not in seen
    assert "Traceback" not in stack.stream.output, stack.stream.output[-3000:]


def test_pages_are_served_over_plain_http_without_a_redirect(stack: Stack) -> None:
    page = get(f"{stack.base}/", follow_redirects=False)
    assert page.status_code == 200, (page.status_code, page.headers.get("location"))
    assert page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["content-encoding"] == "gzip"  # httpx asked for it; nginx compressed
    # The host check still holds for everything but /healthz/.
    assert get(f"{stack.base}/", headers={"Host": "evil.example"}).status_code == 400
    # nginx writes X-Forwarded-Proto itself: a client's claim of https is not believed
    # (Django would answer an https request with HSTS).
    spoofed = get(f"{stack.base}/", headers={"X-Forwarded-Proto": "https"})
    assert spoofed.status_code == 200
    assert "strict-transport-security" not in spoofed.headers


def test_static_files_are_served_by_nginx(stack: Stack) -> None:
    import json

    manifest = json.loads((stack.static_root / "staticfiles.json").read_text())
    hashed = manifest["paths"]["web/css/scorpion.css"]
    on_disk = (stack.static_root / hashed).read_bytes()
    answer = get(f"{stack.base}/static/{hashed}", headers={"Accept-Encoding": "gzip"})
    assert answer.status_code == 200
    assert answer.content == on_disk
    assert answer.headers["content-type"].startswith("text/css")
    assert answer.headers["content-encoding"] == "gzip"
    assert "immutable" in answer.headers["cache-control"]
    plain = get(f"{stack.base}/static/web/css/scorpion.css")
    assert plain.status_code == 200
    assert plain.headers["cache-control"] == "public, max-age=3600"
    assert get(f"{stack.base}/static/web/css/nothing-here.css").status_code == 404
    time.sleep(0.5)  # the access log of gunicorn is written as requests end
    assert "/static/" not in stack.web.output, "a static file reached gunicorn"


def test_the_web_access_log_names_the_client_not_the_proxy(stack: Stack) -> None:
    """Behind nginx, gunicorn's peer is always the proxy: the log line carries the forwarded
    chain instead, ending with the address nginx saw (what NUM_PROXIES=1 reads)."""
    answer = get(f"{stack.base}/healthz/?log-probe=1", headers={"X-Forwarded-For": "203.0.113.9"})
    assert answer.status_code == 200
    time.sleep(0.5)  # the access log of gunicorn is written as requests end
    lines = [line for line in stack.web.output.splitlines() if "log-probe=1" in line]
    assert lines, stack.web.output[-2000:]
    assert "client=[203.0.113.9, 127.0.0.1]" in lines[-1]


# Bodies over the app's limit (DATA_UPLOAD_MAX_MEMORY_SIZE, 64 KiB) up to the old proxy limit
# (1 MiB), where nginx passed the body on to an app that answered 413 without reading it, and
# 6-10% of the answers were 502.
OVERSIZED_TRIES = 200
OVERSIZED_SIZES = (64 * 1024 + 1, 1024 * 1024)


def post_bodies(url: str, sizes: list[int]) -> Counter[str]:
    """POST a JSON-typed body of each size; the statuses seen (or the error that replaced one),
    each answer's problem code checked."""
    seen: Counter[str] = Counter()
    with httpx.Client(timeout=30, headers={"Host": HOST}) as client:
        for size in sizes:
            try:
                answer = client.post(
                    url, content=b" " * size, headers={"Content-Type": "application/json"}
                )
            except httpx.TransportError as exc:
                seen[type(exc).__name__] += 1
                continue
            seen[str(answer.status_code)] += 1
            if answer.status_code == 413:
                assert answer.headers["content-type"] == "application/problem+json"
                assert answer.json()["code"] == "payload_too_large"
    return seen


def oversized(count: int) -> list[int]:
    rng = random.Random(10)
    return [rng.randint(*OVERSIZED_SIZES) for _ in range(count)]


def test_bodies_over_the_limit_get_a_clean_413_through_the_proxy_and_directly(
    stack: Stack,
) -> None:
    """nginx refuses a body over the app's own limit itself; the app, reached directly, reads
    what it refuses before answering: a 413 every time, never a 502 nor a reset."""
    # The stack is the module's: only what the web process logs from here on is this test's
    # (another test sends a foreign Host on purpose, which Django logs with its traceback).
    logged_before = len(stack.web.output)
    limit = int(stack.env["DATA_UPLOAD_MAX_MEMORY_SIZE"])
    assert limit == settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    path = "/api/v1/games/"
    sizes = oversized(OVERSIZED_TRIES)
    through_proxy = post_bodies(f"{stack.base}{path}", sizes)
    assert through_proxy == {"413": OVERSIZED_TRIES}, through_proxy
    direct = post_bodies(f"http://127.0.0.1:{stack.web_port}{path}", sizes)
    assert direct == {"413": OVERSIZED_TRIES}, direct
    # At the limit itself the body reaches the app (whose answer is that spaces are not JSON):
    # the two limits are one.
    at_limit = post_bodies(f"{stack.base}{path}", [limit])
    assert at_limit == {"400": 1}, at_limit
    time.sleep(0.5)  # the access log of gunicorn is written as requests end
    logged = stack.web.output[logged_before:]
    assert "Traceback" not in logged, logged[-3000:]


class SlowClients:
    """Connections that send a request's headers a byte at a time, one every ``interval`` s:
    each would hold a sync worker for as long as it pleases."""

    def __init__(self, port: int, count: int, interval: float = 2.0) -> None:
        self.interval = interval
        self.open: list[socket.socket] = []
        self.closed_by_server = 0
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(f"GET /healthz/ HTTP/1.1\r\nHost: {HOST}\r\nX-Slow: ".encode())
            self.open.append(sock)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._trickle, daemon=True)
        self._thread.start()

    def _trickle(self) -> None:
        while not self._stop.wait(self.interval):
            with self._lock:
                readable, _, _ = select.select(self.open, [], [], 0)
                for sock in self.open.copy():
                    try:
                        # The server only ever answers (or closes) once it gives up.
                        if sock in readable and not sock.recv(4096):
                            raise ConnectionResetError
                        sock.sendall(b"x")
                    except OSError:
                        sock.close()
                        self.open.remove(sock)
                        self.closed_by_server += 1

    @property
    def still_open(self) -> int:
        with self._lock:
            return len(self.open)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        for sock in self.open:
            sock.close()


def latencies(port: int, samples: int, spacing: float) -> list[float]:
    """Seconds for GET /healthz/ through a new connection each time (http.client: nothing
    of the client's own set-up is counted)."""
    found = []
    for _ in range(samples):
        started = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/healthz/", headers={"Host": HOST})
        answer = connection.getresponse()
        body = answer.read()
        found.append(time.perf_counter() - started)
        connection.close()
        assert answer.status == 200, body
        time.sleep(spacing)
    return found


def test_slow_clients_do_not_hold_up_the_service(stack: Stack) -> None:
    direct = f"http://127.0.0.1:{stack.web_port}/healthz/"
    # Without the proxy: 8 slow clients take gunicorn's 4 sync workers (and the next 4 wait
    # in the backlog); nobody else gets an answer.
    slow = SlowClients(stack.web_port, 8)
    try:
        time.sleep(1)
        with pytest.raises(httpx.TimeoutException):
            get(direct, timeout=3)
    finally:
        slow.close()
    wait_until(lambda: answers(direct), 60, "gunicorn did not recover")

    quiet = latencies(stack.proxy_port, samples=8, spacing=0.1)

    # Through the proxy: 50 slow clients wait in nginx; /healthz/ answers as usual. (nginx
    # gives a client client_header_timeout, 10 s, for its whole header: measure before that.)
    slow = SlowClients(stack.proxy_port, 50)
    try:
        time.sleep(2.5)  # a byte from each has gone out since they connected
        started = time.monotonic()
        measured = latencies(stack.proxy_port, samples=16, spacing=0.2)
        open_throughout = slow.still_open
        took = time.monotonic() - started
        # And then nginx cuts them off, without gunicorn ever hearing of them.
        wait_until(lambda: slow.still_open == 0, 30, "nginx kept the slow clients")
    finally:
        slow.close()
    summary = (
        f"/healthz/ through nginx with 50 slow-header connections open: "
        f"median {statistics.median(measured) * 1000:.1f} ms, "
        f"max {max(measured) * 1000:.1f} ms over {len(measured)} requests in {took:.1f} s "
        f"(without them: median {statistics.median(quiet) * 1000:.1f} ms, "
        f"max {max(quiet) * 1000:.1f} ms)"
    )
    print(summary)
    # Every request was answered (``latencies`` asserts each 200) while all 50 slow clients were
    # still open: they held nothing up. Had they reached gunicorn's 4 workers, the requests
    # would have waited for the slow clients to be cut off (or timed out). The figures above
    # are a report, not a bound: how fast is the machine's business.
    assert open_throughout == 50, f"slow clients were cut off during the measurement: {summary}"


def test_tls_variant_serves_https_and_redirects_plain_http(stack: Stack) -> None:
    openssl = shutil.which("openssl")
    require_service("openssl", openssl is not None)
    assert openssl is not None
    prefix = stack.tmp / "nginx-tls"
    (prefix / "temp").mkdir(parents=True)
    variables = proxy_variables(
        prefix,
        f"127.0.0.1:{stack.web_port}",
        f"127.0.0.1:{stack.stream_port}",
        TLS="on",
        SERVER_NAME=HOST,
    )
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            f"/CN={HOST}",
            "-addext",
            f"subjectAltName=DNS:{HOST}",
            "-keyout",
            variables["TLS_CERTIFICATE_KEY"],
            "-out",
            variables["TLS_CERTIFICATE"],
        ],
        check=True,
        capture_output=True,
    )
    conf = render_nginx(prefix, variables)
    http_port = port_of(variables["HTTP_LISTEN"])
    https_port = port_of(variables["HTTPS_LISTEN"])
    with running("nginx-tls", nginx_command(prefix, conf), os.environ.copy()) as proxy:
        wait_listening(https_port, proxy)
        plain = get(f"http://127.0.0.1:{http_port}/daily/?x=1", follow_redirects=False)
        assert plain.status_code == 301
        assert plain.headers["location"] == f"https://{HOST}/daily/?x=1"

        secure = f"https://127.0.0.1:{https_port}"
        health = get(f"{secure}/healthz/", verify=False)
        assert health.status_code == 200
        assert health.json()["status"] == "ok"
        page = get(f"{secure}/", verify=False)
        assert page.status_code == 200
        # Django saw https (X-Forwarded-Proto from nginx, trusted with BEHIND_TLS_PROXY).
        assert page.headers["strict-transport-security"].startswith("max-age=")
        static = get(f"{secure}/static/web/css/scorpion.css", verify=False)
        assert static.status_code == 200
