//! The `fairsteward` binary; everything lives in the library.

fn main() -> std::process::ExitCode {
    fairsteward::cli::main()
}
