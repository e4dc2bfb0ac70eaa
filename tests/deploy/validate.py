#!/usr/bin/env python3
"""Checks deploy/ against the real tools and the real binaries.

    validate.py BIN_DIR

- kustomize renders deploy/k8s/base and every overlay (kubectl kustomize),
  and each manifest validates against the Kubernetes schemas
  (kubernetes-validate, offline: the schemas ship in the package);
- deploy/compose.yaml renders (docker-compose config);
- nginx -t accepts deploy/nginx.conf;
- every flag and environment variable that compose or the manifests hand
  to a binary is one the binary accepts (its own `--help`), and the ports
  the probes, the balancer and Prometheus use are the ones it listens on.

A tool that is missing is reported as `skipped: …` (and fails the run when
MAFIA_REQUIRE_DEPLOY_TOOLS=1, as in CI); the last line is the plain
`N passed, N failed` that CI reads.
"""

import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

REQUIRE = os.environ.get("MAFIA_REQUIRE_DEPLOY_TOOLS") == "1"
try:
    import yaml
except ImportError:
    # PyYAML comes with kubernetes-validate (pip install kubernetes-validate).
    print("skipped: every deploy/ check: PyYAML is not installed (pip install kubernetes-validate)")
    print("0 passed, 0 failed, 1 skipped")
    sys.exit(1 if REQUIRE else 0)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(ROOT, "deploy")
K8S_VERSION = "1.32.0"
BINARIES = {
    "referee": "mafia-referee",
    "gateway": "mafia-gateway",
    "scoring": "mafia-scoring",
    "arena": "mafia-arena",
}
# Read by the processes' runtime, not by clap.
RUNTIME_ENV = {"RUST_LOG"}

passed, failed, skipped = [], [], []


def check(name, fn):
    try:
        fn()
    except Skip as s:
        if REQUIRE and not isinstance(s, Unavailable):
            failed.append(name)
            print(f"FAILED: {name}: {s} (MAFIA_REQUIRE_DEPLOY_TOOLS=1)")
        else:
            skipped.append(name)
            print(f"skipped: {name}: {s}")
    except Exception as e:  # a failed check names what and why
        failed.append(name)
        print(f"FAILED: {name}: {e}")
    else:
        passed.append(name)
        print(f"ok: {name}")


def scratch(prefix):
    """A temporary directory removed when the script ends."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, True)
    return path


class Skip(Exception):
    pass


class Unavailable(Skip):
    """A tool no registry provides: a skip even where tools are required."""


def tool(name, hint):
    path = shutil.which(name)
    if not path:
        raise Skip(f"{name} is not installed ({hint})")
    return path


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r.stdout


class Accepts:
    """What a binary's `--help` says it accepts."""

    def __init__(self, exe):
        text = run([exe, "--help"])
        self.flags = set(re.findall(r"(?<![\w-])(--[a-z0-9][a-z0-9-]*)", text))
        self.env = set(re.findall(r"\[env: ([A-Z0-9_]+)[=\]]", text))
        self.exe = exe

    def flag(self, arg):
        name = arg.split("=", 1)[0]
        if name not in self.flags:
            raise AssertionError(f"{os.path.basename(self.exe)} has no flag {name}")

    def var(self, name):
        if name not in self.env and name not in RUNTIME_ENV:
            raise AssertionError(f"{os.path.basename(self.exe)} reads no variable {name}")


def listen_port(args, flag):
    for a in args:
        if a.startswith(flag + "="):
            return int(a.rsplit(":", 1)[1])
    raise AssertionError(f"no {flag} in {args}")


# --- kustomize -------------------------------------------------------------


def k8s_tree():
    """A copy of deploy/k8s with the files deploy/prepare.sh would make
    (tokens are never committed)."""
    tmp = scratch("mafia-k8s-")
    tree = os.path.join(tmp, "k8s")
    shutil.copytree(os.path.join(DEPLOY, "k8s"), tree)
    with open(os.path.join(tree, "base", "tokens.json"), "w") as f:
        json.dump({"tokens": [{"role": "organiser", "token": "organiser-token-0123"}]}, f)
    with open(os.path.join(tree, "base", "scoring.env"), "w") as f:
        f.write("MAFIA_SCORING_REFEREE_TOKEN=organiser-token-0123\n")
    ext = os.path.join(tree, "overlays", "external-redis")
    shutil.copy(os.path.join(ext, "redis.env.example"), os.path.join(ext, "redis.env"))
    return tree


RENDERED = {}


def render_kustomizations():
    kubectl = shutil.which("kubectl")
    if not kubectl:
        raise Unavailable("kubectl is not installed (it comes with the machine; no registry has it)")
    tree = k8s_tree()
    dirs = ["base"] + [
        os.path.join("overlays", d) for d in sorted(os.listdir(os.path.join(tree, "overlays")))
    ]
    for d in dirs:
        out = run([kubectl, "kustomize", os.path.join(tree, d)])
        RENDERED[d] = [doc for doc in yaml.safe_load_all(out) if doc]
        path = os.path.join(tree, d.replace(os.sep, "-") + ".rendered.yaml")
        with open(path, "w") as f:
            f.write(out)
        RENDERED[d + ":file"] = path
    ext = RENDERED["overlays/external-redis"]
    kinds = {(d["kind"], d["metadata"]["name"]) for d in ext}
    assert ("StatefulSet", "redis") not in kinds, "the external-redis overlay still runs Redis"
    for d in ext:
        if d["kind"] == "Deployment":
            refs = [
                e.get("secretRef", {}).get("name", "")
                for e in d["spec"]["template"]["spec"]["containers"][0].get("envFrom", [])
            ]
            assert any(r.startswith("mafia-redis-") for r in refs), (
                f"{d['metadata']['name']} does not read the external Redis' secret"
            )


def validate_schemas():
    if not RENDERED:
        raise Unavailable("nothing rendered (kubectl missing)")
    kv = tool("kubernetes-validate", "pip install kubernetes-validate")
    for d, docs in RENDERED.items():
        if d.endswith(":file"):
            continue
        r = subprocess.run(
            [kv, "--strict", "--quiet", "-k", K8S_VERSION, RENDERED[d + ":file"]],
            capture_output=True,
            text=True,
        )
        out = r.stdout + r.stderr
        if r.returncode != 0 or "ERROR" in out:
            raise AssertionError(f"{d}:\n{out}")


def k8s_flags(accepts):
    if not RENDERED:
        raise Unavailable("nothing rendered (kubectl missing)")
    for d, docs in RENDERED.items():
        if d.endswith(":file"):
            continue
        maps = {}
        for doc in docs:
            if doc["kind"] in ("ConfigMap", "Secret"):
                maps[doc["metadata"]["name"]] = set((doc.get("data") or {}).keys())
        services = {doc["metadata"]["name"]: doc for doc in docs if doc["kind"] == "Service"}
        for doc in docs:
            if doc["kind"] != "Deployment":
                continue
            for c in doc["spec"]["template"]["spec"]["containers"]:
                kind = c["image"].split("/")[-1].split(":")[0]
                a = accepts[kind]
                args = c.get("args", [])
                for arg in args:
                    a.flag(arg)
                for e in c.get("env", []):
                    a.var(e["name"])
                # Keys of a shared config map go to every service: each must
                # be read by some binary, and the secrets' by this one.
                for src in c.get("envFrom", []):
                    if "configMapRef" in src:
                        for key in maps[src["configMapRef"]["name"]]:
                            if not any(key in b.env or key in RUNTIME_ENV for b in accepts.values()):
                                raise AssertionError(f"{d}: no binary reads {key}")
                    if "secretRef" in src:
                        for key in maps.get(src["secretRef"]["name"], ()):
                            if kind == "scoring" or key == "REDIS_URL":
                                a.var(key)
                port = listen_port(args, "--listen")
                named = {p["name"]: p["containerPort"] for p in c["ports"]}
                assert named.get("metrics") == listen_port(args, "--metrics-listen"), (
                    f"{d}: {kind}'s metrics port"
                )
                for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
                    p = c.get(probe)
                    if not p:
                        continue
                    target = (p.get("grpc") or p.get("httpGet") or {}).get("port")
                    target = named.get(target, target)
                    assert target == port, f"{d}: {kind}'s {probe} asks port {target}, it listens on {port}"
                svc = services[kind]
                for sp in svc["spec"]["ports"]:
                    assert named.get(sp["targetPort"], sp["targetPort"]) in named.values(), (
                        f"{d}: service {kind} targets {sp['targetPort']}"
                    )


# --- compose ---------------------------------------------------------------

COMPOSE = {}


def render_compose():
    dc = tool("docker-compose", "apt-get install docker-compose")
    env = dict(os.environ, MAFIA_ORGANISER_TOKEN="organiser-token-0123", MAFIA_CHIEF_TOKEN="chief-token-0123")
    out = run(
        [dc, "-f", os.path.join(DEPLOY, "compose.yaml"), "--profile", "demo", "--profile", "monitoring", "config"],
        env=env,
        cwd=scratch("mafia-compose-"),
    )
    COMPOSE.update(yaml.safe_load(out))
    redis = COMPOSE["services"]["redis"]["command"]
    assert "--appendonly" in redis and redis[redis.index("--appendonly") + 1] == "yes", "Redis without AOF"
    assert redis[redis.index("--appendfsync") + 1] in ("always", "everysec")
    names = set(COMPOSE["services"])
    for want in ("referee-1", "referee-2", "referee-3", "gateway-1", "gateway-2", "scoring", "lb"):
        assert want in names, f"compose has no {want}"


def compose_flags(accepts):
    if not COMPOSE:
        raise Skip("compose not rendered (docker-compose missing)")
    ports = {}
    for name, svc in COMPOSE["services"].items():
        target = (svc.get("build") or {}).get("target")
        if target not in accepts:
            continue
        a = accepts[target]
        args = svc.get("command") or []
        for arg in args:
            a.flag(arg)
        for var in svc.get("environment") or {}:
            a.var(var)
        if target == "arena":
            continue
        port = listen_port(args, "--listen")
        ports[name] = (port, listen_port(args, "--metrics-listen"))
        test = " ".join(svc["healthcheck"]["test"])
        assert f"127.0.0.1:{port}" in test, f"{name}'s health check asks another port: {test}"
    # The balancer's upstreams and Prometheus' targets are those ports.
    with open(os.path.join(DEPLOY, "nginx.conf")) as f:
        for host, port in re.findall(r"server ([a-z0-9-]+):(\d+)", f.read()):
            assert ports[host][0] == int(port), f"nginx sends {host} to {port}, it listens on {ports[host][0]}"
    with open(os.path.join(DEPLOY, "prometheus.yml")) as f:
        prom = yaml.safe_load(f)
    seen = set()
    for job in prom["scrape_configs"]:
        for sc in job.get("static_configs", []):
            for t in sc["targets"]:
                host, port = t.rsplit(":", 1)
                assert ports[host][1] == int(port), f"prometheus scrapes {t}, metrics are on {ports[host][1]}"
                seen.add(host)
    assert seen == set(ports), f"prometheus misses {set(ports) - seen}"


# --- make run ---------------------------------------------------------------


def run_sh_commands():
    """deploy/run.sh's invocations of the binaries: (variables set for it,
    binary, its arguments), continuation lines joined."""
    with open(os.path.join(DEPLOY, "run.sh")) as f:
        text = re.sub(r"\\\n\s*", " ", f.read())
    out = []
    for line in text.splitlines():
        m = re.match(r'\s*((?:[A-Z0-9_]+="[^"]*"\s+)*)(?:exec\s+)?"\$bin/(mafia-[a-z]+)"(.*)', line)
        if m:
            env = re.findall(r"([A-Z0-9_]+)=", m.group(1))
            args = re.findall(r"(--[a-z0-9-]+)", m.group(3))
            out.append((env, m.group(2), args))
    return out


def run_sh_tokens(accepts):
    by_exe = {v: accepts[k] for k, v in BINARIES.items()}
    commands = run_sh_commands()
    assert len(commands) >= 4, f"run.sh starts {len(commands)} binaries"
    for env, exe, args in commands:
        # `ps` shows every process's command line to every user.
        tokens = [a for a in args if "token" in a]
        assert not tokens, f"run.sh passes {tokens} to {exe} on its command line"
        for a in args:
            by_exe[exe].flag(a)
        for var in env:
            by_exe[exe].var(var)


def nginx_config():
    nginx = tool("nginx", "apt-get install nginx-light")
    tmp = scratch("mafia-nginx-")
    with open(os.path.join(DEPLOY, "nginx.conf")) as f:
        # The upstreams' names exist only on the compose network.
        conf = re.sub(r"server ([a-z0-9-]+):(\d+)", r"server 127.0.0.1:\2", f.read())
    path = os.path.join(tmp, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    run([nginx, "-t", "-q", "-c", path, "-g", f"pid {tmp}/nginx.pid;"])


def main():
    bins = sys.argv[1]
    accepts = {k: Accepts(os.path.join(bins, v)) for k, v in BINARIES.items()}
    check("kustomize renders base and overlays", render_kustomizations)
    check(f"manifests validate against Kubernetes {K8S_VERSION} schemas", validate_schemas)
    check("manifests pass only flags, variables and ports the binaries have", lambda: k8s_flags(accepts))
    check("compose.yaml renders", render_compose)
    check("compose passes only flags, variables and ports the binaries have", lambda: compose_flags(accepts))
    check("nginx accepts nginx.conf", nginx_config)
    check("run.sh passes tokens in the environment, never as flags", lambda: run_sh_tokens(accepts))
    print(f"{len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
