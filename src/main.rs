//! The `locker` binary: everything lives in the library; this only turns its result into an
//! exit code, and gives it the version `build.rs` stamped with the commit (kept out of the
//! library's code: `cli::main`).

fn main() -> std::process::ExitCode {
    locker::cli::main(env!("LOCKER_LONG_VERSION"))
}
