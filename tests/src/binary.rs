//! Finding, and if need be building, the `arbiter` binary under test (see the crate docs).

use std::{
    env,
    ffi::OsString,
    path::{Path, PathBuf},
    process::Command,
    sync::OnceLock,
    time::Duration,
};

/// Longest time the build of the binary may take (a cold release build with LTO on two cores).
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The `arbiter` binary to test: `ARBITER_BIN` if set, otherwise the binary of the running test's
/// target directory and profile, built (or found up to date) by cargo on first use.
///
/// # Panics
///
/// Panics with the reason when `ARBITER_BIN` names no file, when the build fails or times out, or
/// when no binary can be found.
pub fn arbiter() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(locate_or_build)
}

fn locate_or_build() -> PathBuf {
    if let Some(path) = env::var_os("ARBITER_BIN") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "ARBITER_BIN={} is not a file",
            path.display()
        );
        return path;
    }

    // Test executables live in <target dir>/<profile dir>/deps/.
    let test_exe = env::current_exe().expect("the path of the running test executable");
    let profile_dir = test_exe
        .parent()
        .and_then(Path::parent)
        .expect("the test executable lives in <target>/<profile>/deps/");
    let binary = profile_dir.join(format!("arbiter{}", env::consts::EXE_SUFFIX));
    let target_dir = profile_dir.parent().filter(|dir| {
        // A cargo target directory carries this tag; cross builds (<target>/<triple>/<profile>)
        // do not match and must name the binary with ARBITER_BIN.
        dir.join("CACHEDIR.TAG").is_file()
    });

    if let (Some(cargo), Some(target_dir)) = (env::var_os("CARGO"), target_dir) {
        build(&cargo, target_dir, profile_dir);
    }
    assert!(
        binary.is_file(),
        "no arbiter binary at {}: run the tests with cargo (which builds it), build it with \
         `cargo build -p arbiter-server --bin arbiter`, or set ARBITER_BIN",
        binary.display()
    );
    binary
}

/// Builds (or finds up to date) the `arbiter` binary of the profile whose output directory is
/// `profile_dir`.
fn build(cargo: &OsString, target_dir: &Path, profile_dir: &Path) {
    let profile = match profile_dir.file_name().and_then(|name| name.to_str()) {
        Some("debug") => "dev".to_owned(),
        Some(name) => name.to_owned(),
        None => panic!("cannot tell the profile of {}", profile_dir.display()),
    };
    let mut command = Command::new(cargo);
    command
        .current_dir(crate::workspace_root())
        .args(["build", "--package", "arbiter-server", "--bin", "arbiter"])
        .arg("--profile")
        .arg(&profile)
        .arg("--target-dir")
        .arg(target_dir);
    eprintln!("arbiter-e2e: {command:?}");
    let output = crate::command::run(&mut command, BUILD_TIMEOUT);
    assert!(
        output.status.success(),
        "building the arbiter binary failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}
