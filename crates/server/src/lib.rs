//! The arbiter gRPC server: chess rules as a service.
//!
//! The `arbiter` binary is a thin command line over this library: [`cli`] parses flags and their
//! `ARBITER_*` environment fallbacks into plain configuration values ([`serve::ServeConfig`],
//! [`health_check::Probe`]) that the modules below take (none of them imports [`cli`]),
//! [`serve`] runs the gRPC server (the arbiter service, gRPC
//! health, server reflection v1 and v1alpha, graceful shutdown) on [`transport`]'s bounded
//! accept loop, [`guard`] admits and bounds every call in time and in number, [`workers`] runs
//! their chess work on a fixed pool, [`overload`] logs what was shed at a bounded rate,
//! [`metrics`] counts and times every call (Prometheus) and opens its log span, [`service`]
//! holds the handlers, [`tls`] serves TLS certificates that are rotated without a restart,
//! [`health`] is the gRPC health service, [`grpc_web`] answers gRPC-Web (browsers) with CORS
//! on the same port, [`health_check`] is a health client for probes, and [`output`] is what the
//! commands write and how a closed pipe ends them (quietly, exit status 0).
//!
//! ```no_run
//! use arbiter_server::{cli::Cli, serve::{Bound, shutdown_signal}};
//! use clap::Parser as _;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let cli = Cli::parse_from(["arbiter", "serve", "--grpc-addr", "127.0.0.1:0"]);
//! let arbiter_server::cli::Command::Serve(args) = cli.command else { unreachable!() };
//! let bound = Bound::bind(args.config()?).await?;
//! println!("arbiter listening on {}", bound.local_addr()?);
//! bound.serve(shutdown_signal()).await?;
//! # Ok(())
//! # }
//! ```

pub mod address;
pub mod adjudicate;
pub mod adjudicate_cli;
pub mod cli;
pub mod delivery;
pub mod duration;
pub mod follow;
pub mod grpc_web;
pub mod guard;
pub mod health;
pub mod health_check;
pub mod limits;
pub mod logging;
pub mod metrics;
pub mod output;
pub mod overload;
pub mod pgn_input;
pub mod serve;
pub mod service;
pub mod tls;
pub mod transport;
pub mod workers;
