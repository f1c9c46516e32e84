"""scripts/setup-debian.sh on a fake fresh machine: what it finds missing, what it plans, what it
runs, and what it tells a user who cannot install. (CTest: prerequisite_check_plans_installs_and_refuses.)

Each case builds a machine from stubs: a bin/ directory that is the whole PATH (node, npm, cmake, make,
g++, emcc, em++, emcmake, chromium, id, sudo, apt-get: small scripts that log their arguments), a
fake / (TINYGPT_SETUP_ROOT) with etc/os-release and the font file, and a fake python
(root/usr/bin/python3) that has torch or not. Nothing is installed for real. Standard library only.
"""
import os
import stat
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "setup-debian.sh")
BASH = "/bin/bash"

TOOLS = ["node", "npm", "cmake", "make", "g++", "emcc", "em++", "emcmake", "chromium", "clang++"]
FUZZER = "usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a"   # libclang-rt-14-dev's
OS_RELEASE = {
    "debian": 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n',
    "ubuntu": 'PRETTY_NAME="Ubuntu 24.04 LTS"\nID=ubuntu\nVERSION_ID="24.04"\n',
    "fedora": 'PRETTY_NAME="Fedora Linux 40"\nID=fedora\n',
}


class FakeMachine:
    def __init__(self, tmp, distro="debian", uid=0, sudo_works=False, torch=True, without=(), fuzzer=True):
        self.bin = os.path.join(tmp, "bin")
        self.root = os.path.join(tmp, "root")
        self.log = os.path.join(tmp, "log")
        os.makedirs(self.bin)
        os.makedirs(os.path.join(self.root, "etc"))
        with open(os.path.join(self.root, "etc", "os-release"), "w") as f:
            f.write(OS_RELEASE[distro])
        font = os.path.join(self.root, "usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
        os.makedirs(os.path.dirname(font))
        open(font, "w").close()
        fuzzer_lib = os.path.join(self.root, FUZZER)
        if fuzzer:
            os.makedirs(os.path.dirname(fuzzer_lib))
            open(fuzzer_lib, "w").close()
        for tool in TOOLS:
            if tool not in without:
                self.stub(tool, "exit 0")
        self.stub("id", f'[ "$1" = -u ] && echo {uid} || echo "uid={uid}"')
        self.stub("sudo", f'echo "sudo $*" >> {self.log}; ' + ('[ "$1" = -n ] && shift; [ "$1" = true ] && exit 0; exec "$@"'
                                                                 if sudo_works else "exit 1"))
        self.python = os.path.join(self.root, "usr", "bin", "python3")  # the system python
        os.makedirs(os.path.dirname(self.python))
        self.write(self.python, "exit 0" if torch else "exit 1")
        # apt-get "installs" a package by creating the commands it provides (cmake provides nothing:
        # a package that does not deliver)
        provides = {"emscripten": ["emcc", "em++", "emcmake"], "chromium": ["chromium"], "g++": ["g++"],
                    "chromium-browser": ["chromium"], "clang": ["clang++"]}
        body = [f'echo "apt-get $*" >> {self.log}']
        for pkg, commands in provides.items():
            for c in commands:
                body.append(f'[[ " $* " == *" {pkg} "* ]] && printf "#!/bin/bash\\nexit 0\\n" > {self.bin}/{c} '
                            f'&& /bin/chmod +x {self.bin}/{c}')
        body.append(f'[[ " $* " == *" python3-torch "* ]] && printf "#!/bin/bash\\nexit 0\\n" > {self.python}')
        body.append(f'[[ " $* " == *" libclang-rt-dev "* ]] && /bin/mkdir -p {os.path.dirname(fuzzer_lib)} && > {fuzzer_lib}')
        body.append("exit 0")
        self.stub("apt-get", "\n".join(body))

    def write(self, path, body):
        with open(path, "w") as f:
            f.write("#!/bin/bash\n" + body + "\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def stub(self, name, body):
        self.write(os.path.join(self.bin, name), body)

    def run(self, *args):
        env = {"PATH": self.bin, "TINYGPT_SETUP_ROOT": self.root}
        return subprocess.run([BASH, SCRIPT, *args], env=env, capture_output=True, text=True, cwd=ROOT)

    def calls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return f.read().splitlines()


class PrerequisiteCheck(unittest.TestCase):
    def machine(self, **kw):
        tmp = tempfile.mkdtemp()
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", tmp]))
        return FakeMachine(tmp, **kw)

    def test_everything_present_is_silent_and_installs_nothing(self):
        m = self.machine()
        for target in ("start", "test"):
            r = m.run(target)
            self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))
        self.assertEqual(m.calls(), [])

    def test_dry_run_without_emcc_prints_the_install_plan(self):
        m = self.machine(without=("emcc", "em++", "emcmake"))
        r = m.run("test", "--dry-run")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [
            "tinygpt (test): missing Emscripten (emcc, em++, emcmake)",
            "plan: apt-get update",
            "plan: apt-get install -y --no-install-recommends emscripten",
        ])
        self.assertEqual(m.calls(), [])  # a dry run changes nothing

    def test_as_root_it_installs_only_what_is_missing_and_checks_again(self):
        m = self.machine(without=("emcc", "em++", "emcmake", "chromium"), torch=False)
        r = m.run("test")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(m.calls(), [
            "apt-get update",
            "apt-get install -y --no-install-recommends emscripten python3-torch",
            "apt-get install -y chromium",
        ])
        self.assertEqual(m.run("test").returncode, 0)  # a second run: everything there, nothing installed
        self.assertEqual(len(m.calls()), 3)

    def test_a_package_that_does_not_provide_its_command_is_reported(self):
        m = self.machine(without=("cmake",))
        r = m.run("start")
        self.assertEqual(r.returncode, 1)
        self.assertIn("apt-get install -y --no-install-recommends cmake", m.calls()[-1])
        self.assertIn("still missing after installing", r.stderr)
        self.assertIn("missing CMake", r.stderr)

    def test_non_root_with_passwordless_sudo_uses_sudo_n(self):
        m = self.machine(uid=1000, sudo_works=True, without=("emcc", "em++", "emcmake"))
        r = m.run("start", "--dry-run")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("plan: sudo -n apt-get install -y --no-install-recommends emscripten", r.stdout)
        r = m.run("start")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("sudo -n apt-get install -y --no-install-recommends emscripten", m.calls())
        self.assertIn("apt-get install -y --no-install-recommends emscripten", m.calls())

    def test_non_root_without_sudo_stops_with_the_one_command_to_run(self):
        m = self.machine(uid=1000, sudo_works=False, without=("emcc", "em++", "emcmake"))
        r = m.run("test")
        self.assertEqual(r.returncode, 1)
        self.assertIn("tinygpt needs system packages that are not installed (emscripten). Install them with:\n"
                      "    sudo scripts/setup-debian.sh test\n", r.stderr)
        self.assertEqual([c for c in m.calls() if c.startswith("apt-get")], [])

    def test_npm_start_needs_less_than_npm_test(self):
        m = self.machine(without=("g++", "chromium"), torch=False)
        self.assertEqual(m.run("start").returncode, 0)
        r = m.run("test", "--dry-run")
        self.assertEqual(r.returncode, 3)
        self.assertIn("missing g++, Chromium, PyTorch (python3-torch)", r.stdout)

    def test_the_fuzzers_need_clang_and_libfuzzer_for_npm_test_only(self):
        m = self.machine(without=("clang++",), fuzzer=False)
        self.assertEqual(m.run("start").returncode, 0)
        r = m.run("test", "--dry-run")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("missing clang++ (clang), libFuzzer (libclang-rt-dev)", r.stdout)
        self.assertIn("plan: apt-get install -y --no-install-recommends clang libclang-rt-dev", r.stdout)
        r = m.run("test")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)   # installed, and found afterwards
        self.assertEqual(m.run("test", "--dry-run").returncode, 0)

    def test_ubuntu_package_names_and_pytorch(self):
        m = self.machine(distro="ubuntu", without=("chromium",), torch=False)
        r = m.run("test", "--dry-run")
        self.assertEqual(r.returncode, 1)  # PyTorch has no Ubuntu 24.04 package: it cannot finish
        self.assertIn("plan: apt-get install -y chromium-browser", r.stdout)
        self.assertIn("PyTorch (not packaged for Ubuntu 24.04): python3 -m venv", r.stderr)
        self.assertIn("TINYGPT_PYTHON=", r.stderr)

    def test_other_systems_get_the_list_of_what_to_install(self):
        m = self.machine(distro="fedora", without=("cmake",))
        r = m.run("start")
        self.assertEqual(r.returncode, 1)
        self.assertIn("Debian 12 and Ubuntu 24.04 only", r.stderr)
        self.assertIn("cmake", r.stderr)
        self.assertEqual(m.calls(), [])

    def test_node_is_expected_not_installed(self):
        m = self.machine(without=("node",))
        r = m.run("start")
        self.assertEqual(r.returncode, 1)
        self.assertIn("Node.js 20.19 or newer with npm", r.stderr)
        self.assertIn("nodejs package is 18", r.stderr)

    def test_this_machine_after_npm_tests_setup_needs_nothing(self):
        # npm test ran the check (pretest) before CTest runs this: a second run finds everything
        r = subprocess.run([BASH, SCRIPT, "test", "--dry-run"], capture_output=True, text=True, cwd=ROOT)
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)


if __name__ == "__main__":
    unittest.main()
