//! The `arbiter` binary: `serve`, `perft`, `health-check` and `adjudicate`.

use std::io::Write as _;
use std::process::ExitCode;

use arbiter_server::{
    cli::{self, BoardArgs, Command, PerftArgs},
    health_check, logging, output,
    serve::{Bound, shutdown_signal},
};

/// jemalloc instead of the system allocator: games, records and responses are many small
/// allocations made on one thread and freed on another, which glibc's malloc handles slowly, and
/// a server must give back what a load took once the load is over (BENCHMARKS.md has both
/// measurements). Its settings are fixed at build time by `.cargo/config.toml`
/// (`JEMALLOC_SYS_WITH_MALLOC_CONF`): a background thread returns dirty pages to the system
/// after one second unused, whether or not the threads that freed them allocate again, and
/// transparent huge pages are left to the system's default. They can be changed when the program
/// starts with `_RJEM_MALLOC_CONF` (jemalloc's `MALLOC_CONF`, prefixed).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Exit status of a command line that cannot be parsed (sysexits' EX_USAGE), so that 2 keeps
/// meaning "a game has an illegal move or a result the rules contradict" for `adjudicate`.
const EXIT_USAGE: u8 = 64;

fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match cli::try_parse(&argv) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            if let Some(variable) = cli::refused_variable(&error, &argv) {
                output::report(format_args!(
                    "that value comes from the environment variable {variable}"
                ));
            }
            return if error.use_stderr() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::SUCCESS // --help, --version
            };
        }
    };
    match cli.command {
        Command::Serve(args) => {
            // Flags that contradict each other are a command line error too.
            let config = match args.config() {
                Ok(config) => config,
                Err(error) => {
                    output::report(format_args!("{error}"));
                    return ExitCode::from(EXIT_USAGE);
                }
            };
            logging::init(args.log_format());
            // Chess work runs on the blocking pool, whose size is fixed by the flags (workers,
            // analyses, housekeeping): it never grows with the number of calls.
            let blocking_threads = config.blocking_threads();
            run_async(blocking_threads, Report::Log, async move {
                // Listen for signals before anything is announced: a SIGTERM sent right after
                // the listening line must start a drain, not kill the process.
                let shutdown = shutdown_signal();
                let bound = Bound::bind(config).await?;
                // One log line names every address (a port of 0 resolved), in the log's own
                // format: scripts and the end-to-end tests read it from there, and nothing is
                // written on standard output, so that a container's output is all one format.
                // A host name that stands for two addresses binds both: `127.0.0.1:50051,
                // [::1]:50051`.
                let off = |addrs: Option<Vec<std::net::SocketAddr>>| {
                    addrs.map_or_else(|| "off".to_owned(), |addrs| joined(&addrs))
                };
                tracing::info!(
                    grpc_addr = %joined(&bound.local_addrs()?),
                    metrics_addr = %off(bound.metrics_addrs()?),
                    health_addr = %off(bound.health_addrs()?),
                    "arbiter listening"
                );
                bound.serve(shutdown).await?;
                tracing::info!("arbiter stopped");
                Ok(())
            })
        }
        Command::Perft(args) => perft(&args),
        Command::Adjudicate(args) => arbiter_server::adjudicate_cli::main(&args),
        Command::Board(args) => board(&args),
        Command::HealthCheck(args) => {
            let status = run_async(1, Report::Plain, async move {
                health_check::run(&args.probe()).await?;
                Ok(())
            });
            if status != ExitCode::SUCCESS {
                return status;
            }
            output::line("SERVING").map_or_else(|error| output::write_failed(&error), |()| status)
        }
    }
}

/// The addresses a port bound, as the listening line names them: `127.0.0.1:50051`, or
/// `127.0.0.1:50051, [::1]:50051` for a name that stands for two.
fn joined(addrs: &[std::net::SocketAddr]) -> String {
    addrs
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where a command reports the error that ends it.
#[derive(Clone, Copy)]
enum Report {
    /// A plain `arbiter: ...` line on standard error (the commands that write no log).
    Plain,
    /// An ERROR line of the log, in the log's format (`serve`: one format per process).
    Log,
}

impl Report {
    fn error(self, error: &dyn std::fmt::Display) {
        match self {
            Self::Plain => output::report(format_args!("{error}")),
            Self::Log => tracing::error!(%error, "arbiter stopped on an error"),
        }
    }
}

/// Runs `task` on a multi-threaded runtime and turns its error into exit status 1, reported
/// as `report` says.
fn run_async(
    blocking_threads: usize,
    report: Report,
    task: impl Future<Output = Result<(), Box<dyn std::error::Error>>>,
) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(blocking_threads.max(1))
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            report.error(&format_args!("cannot start the async runtime: {error}"));
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(task);
    // Connections still open after a drain timeout must not keep the process alive.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            report.error(&error);
            ExitCode::FAILURE
        }
    }
}

/// `arbiter perft`: prints the node count (with `--divide`, first one `move: count` line per
/// legal move in UCI order, then an empty line), and the speed on standard error.
/// `arbiter board FEN`: the SVG diagram on standard output.
fn board(args: &BoardArgs) -> ExitCode {
    let position = match arbiter_rules::Position::from_fen_detecting_mode(
        &args.fen,
        arbiter_rules::Validation::STRICT,
    ) {
        Ok(position) => position,
        Err(error) => {
            output::report(format_args!("invalid FEN: {error}"));
            return ExitCode::from(2);
        }
    };
    let svg = arbiter_report::board_svg(&arbiter_report::Diagram {
        position: &position,
        last_move: args.last_move,
        flipped: args.flip,
    });
    let mut out = std::io::stdout().lock();
    match out.write_all(svg.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => output::write_failed(&error),
    }
}

fn perft(args: &PerftArgs) -> ExitCode {
    let position = if args.chess960 {
        let options = arbiter_rules::FenOptions {
            mode: arbiter_rules::CastlingMode::Chess960,
            validation: arbiter_rules::Validation::STRICT,
        };
        arbiter_rules::Position::from_fen_with(&args.fen, options)
    } else {
        // A FEN only valid in Chess960 (Shredder-FEN, king or rooks off their standard squares)
        // is read as Chess960.
        arbiter_rules::Position::from_fen_detecting_mode(
            &args.fen,
            arbiter_rules::Validation::STRICT,
        )
    };
    let position = match position {
        Ok(position) => position,
        Err(error) => {
            output::report(format_args!("invalid --fen: {error}"));
            return ExitCode::from(2);
        }
    };
    let started = std::time::Instant::now();
    let nodes = if args.divide {
        let mut divided: Vec<(String, u64)> = arbiter_rules::perft_divide(&position, args.depth)
            .into_iter()
            .map(|(mv, count)| (position.uci(&mv), count))
            .collect();
        divided.sort();
        let mut out = std::io::stdout().lock();
        let written = divided
            .iter()
            .try_for_each(|(uci, count)| writeln!(out, "{uci}: {count}"))
            .and_then(|()| writeln!(out));
        if let Err(error) = written {
            return output::write_failed(&error); // `| head`: quietly, status 0
        }
        divided.iter().map(|(_, count)| count).sum()
    } else {
        arbiter_rules::perft(&position, args.depth)
    };
    let elapsed = started.elapsed();
    if let Err(error) = output::line(&nodes.to_string()) {
        return output::write_failed(&error);
    }
    #[allow(clippy::cast_precision_loss)]
    let rate = nodes as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6;
    let _ = writeln!(
        std::io::stderr().lock(),
        "perft({}) = {nodes} in {:.3} s ({rate:.1} Mnps)",
        args.depth,
        elapsed.as_secs_f64()
    );
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    /// The allocator runs with the settings `.cargo/config.toml` bakes in: without its background
    /// thread, memory freed by idle threads stays resident after a load (issue 10).
    #[test]
    fn allocator_returns_memory_without_waiting_for_allocations() {
        assert!(
            tikv_jemalloc_ctl::opt::background_thread::read().expect("opt.background_thread"),
            "jemalloc was built without background_thread:true (is .cargo/config.toml read?)"
        );
        let baked = tikv_jemalloc_ctl::config::malloc_conf::read().expect("config.malloc_conf");
        let config = include_str!("../../../.cargo/config.toml");
        let wanted = config
            .lines()
            .find_map(|line| line.strip_prefix("JEMALLOC_SYS_WITH_MALLOC_CONF = "))
            .expect("the setting in .cargo/config.toml")
            .trim_matches('"');
        assert_eq!(baked.trim_end_matches('\0'), wanted);
    }
}
