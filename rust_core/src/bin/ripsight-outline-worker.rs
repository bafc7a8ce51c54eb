//! The outline worker as a program of its own, for the engine's cargo tests (the Python
//! package starts the same loop through `python -I ripsight/_outline_worker.py`, which ships in
//! its wheel; this program does not).

fn main() -> std::process::ExitCode {
    match ripsight_core::outline::worker::serve_stdio() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(_) => std::process::ExitCode::FAILURE,
    }
}
