//! `grpc.health.v1.Health` as the gRPC health-checking protocol (grpc/grpc
//! `doc/health-checking.md`) asks:
//!
//! - Check of a registered name answers its status; of any other name, NOT_FOUND.
//! - Watch sends the current status first, then each change (a status equal to the last one sent
//!   is not sent again). Watch of an unregistered name sends SERVICE_UNKNOWN and keeps the call
//!   open; if the name is registered later, its status is sent then.
//!
//! tonic-health's own service ends a Watch of an unknown name with NOT_FOUND, hence this one.
//! [`HealthReporter`] sets the statuses; [`reporter`] makes a reporter and its service.
//!
//! # What a client can make the server keep
//!
//! Registered names are the server's own (the few of [`DRAINED_NAMES`] and [`LIVENESS`]) and stay for the life of
//! the server. A Watch of an unregistered name needs an entry under that name to hear of a later
//! registration, and clients choose those names, so such entries are bounded: at most
//! [`MAX_WATCHED_UNKNOWN_NAMES`] names, each at most [`MAX_NAME_BYTES`] bytes long, and an entry
//! is removed when its last watcher goes away (so at most 32 KiB of client-chosen names, plus a
//! channel each). A Watch beyond either limit shares one channel that says SERVICE_UNKNOWN
//! forever: the call still gets SERVICE_UNKNOWN and stays open, but would not hear of a later
//! registration of its name (arbiter registers all its names before it serves, so nothing is
//! missed in practice). The Watch calls themselves are bounded by the transport like any other
//! call.
//!
//! # On the probe port
//!
//! The same service, Watch included, answers on the plaintext probe port (`--health-addr`),
//! whose few connections (`--health-max-connections`) are the kubelet's. A Watch lasts as long
//! as its client wants, so 32 connections each holding one kept every fresh probe out. Serving
//! only Check there would not help: a Check whose request never ends is a call in progress too,
//! and idle connections reopened at once hold the port as well. The port is kept open at the
//! connection level instead: at its cap, the source address holding the most connections loses
//! its oldest one, Watch and all ([`crate::transport::WhenFull::EvictFromBusiestSource`]), so a
//! probe always gets a place.
//!
//! # Shutdown
//!
//! A Watch call lasts as long as its client wants, and a graceful shutdown waits for every call in
//! flight. [`HealthReporter::end_watches`] ends every Watch call with UNAVAILABLE (the protocol
//! tells clients to retry with backoff after any status) and fails later ones the same way.

use std::{
    collections::HashMap,
    fmt,
    pin::Pin,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
    task::{Context, Poll, ready},
};

use arbiter_proto::SERVICE_NAME;
use tokio::sync::watch;
use tokio_stream::{Stream, wrappers::WatchStream as StatusStream};
use tonic::{Request, Response, Status};
use tonic_health::{
    ServingStatus,
    pb::{
        HealthCheckRequest, HealthCheckResponse,
        health_check_response::ServingStatus as WireStatus,
        health_server::{Health, HealthServer},
    },
};

/// Health name that reports whether the process is alive; it stays SERVING while draining, so
/// that a liveness probe never kills a process that is shutting down cleanly.
pub const LIVENESS: &str = "liveness";

/// Health name that reports whether the process accepts new calls; NOT_SERVING while draining.
pub const READINESS: &str = "readiness";

/// The health names that turn NOT_SERVING when draining: the whole server (""), the arbiter
/// service and readiness.
pub const DRAINED_NAMES: [&str; 3] = ["", SERVICE_NAME, READINESS];

/// At most this many distinct unregistered names have an entry of their own at a time (see the
/// module documentation).
pub const MAX_WATCHED_UNKNOWN_NAMES: usize = 128;

/// An unregistered name longer than this (in bytes) gets no entry of its own (see the module
/// documentation).
pub const MAX_NAME_BYTES: usize = 256;

/// The message of the UNAVAILABLE status that ends Watch calls at shutdown.
const SHUTTING_DOWN: &str = "the server is shutting down";

/// A new reporter, with no name registered, and the `grpc.health.v1.Health` service that serves
/// its statuses.
#[must_use]
pub fn reporter() -> (HealthReporter, HealthServer<HealthService>) {
    let (reporter, service) = reporter_and_service();
    (reporter, HealthServer::new(service))
}

fn reporter_and_service() -> (HealthReporter, HealthService) {
    let registry = Arc::new(Registry {
        names: Mutex::new(Names::default()),
        unknown: watch::Sender::new(WireStatus::ServiceUnknown),
        ending: watch::Sender::new(false),
    });
    let reporter = HealthReporter {
        registry: Arc::clone(&registry),
    };
    (reporter, HealthService { registry })
}

/// Sets the statuses the health service answers; cheap to clone, and every clone sets the same
/// statuses.
#[derive(Clone, Debug)]
pub struct HealthReporter {
    registry: Arc<Registry>,
}

impl HealthReporter {
    /// Registers `name` if needed and makes it SERVING.
    pub fn set_serving(&self, name: &str) {
        self.set_status(name, ServingStatus::Serving);
    }

    /// Registers `name` if needed and makes it NOT_SERVING.
    pub fn set_not_serving(&self, name: &str) {
        self.set_status(name, ServingStatus::NotServing);
    }

    /// Registers `name` if needed and sets its status; its watchers hear of it when it changes.
    pub fn set_status(&self, name: &str, status: ServingStatus) {
        let status = WireStatus::from(status);
        let mut guard = self.registry.lock();
        let names = &mut *guard;
        match names.entries.get_mut(name) {
            Some(entry) => {
                if !entry.registered {
                    entry.registered = true;
                    names.unregistered -= 1;
                }
                entry.status.send_if_modified(|current| {
                    let changed = *current != status;
                    *current = status;
                    changed
                });
            }
            None => {
                names.entries.insert(
                    name.to_owned(),
                    Entry {
                        status: watch::Sender::new(status),
                        registered: true,
                    },
                );
            }
        }
    }

    /// Ends every Watch call with UNAVAILABLE and fails later ones the same way, so that a
    /// graceful shutdown does not wait for them; Check still answers.
    pub fn end_watches(&self) {
        self.registry.ending.send_replace(true);
    }
}

/// Turns every drained health name NOT_SERVING; liveness stays SERVING.
pub fn set_draining(reporter: &HealthReporter) {
    for name in DRAINED_NAMES {
        reporter.set_status(name, ServingStatus::NotServing);
    }
}

/// The `grpc.health.v1.Health` service of a [`HealthReporter`] (see the module documentation).
#[derive(Debug)]
pub struct HealthService {
    registry: Arc<Registry>,
}

#[tonic::async_trait]
impl Health for HealthService {
    async fn check(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        match self.registry.registered_status(&request.get_ref().service) {
            Some(status) => Ok(Response::new(response(status))),
            // The name is not echoed: the client chose it and knows it.
            None => Err(Status::not_found("service not registered")),
        }
    }

    type WatchStream = WatchStream;

    async fn watch(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        if *self.registry.ending.borrow() {
            return Err(Status::unavailable(SHUTTING_DOWN));
        }
        Ok(Response::new(
            self.registry.subscribe(request.into_inner().service),
        ))
    }
}

/// The messages of one Watch call: the current status, then each change, until the server
/// ends it.
pub struct WatchStream {
    statuses: StatusStream<WireStatus>,
    last_sent: Option<WireStatus>,
    ending: Pin<Box<dyn Future<Output = ()> + Send>>,
    ended: bool,
    // Only dropped. Last: fields are dropped in declaration order, so `statuses` (this call's
    // receiver) is gone when `Release` counts the entry's receivers.
    _release: Option<Release>,
}

impl Stream for WatchStream {
    type Item = Result<HealthCheckResponse, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.ended {
            return Poll::Ready(None);
        }
        if this.ending.as_mut().poll(cx).is_ready() {
            this.ended = true;
            return Poll::Ready(Some(Err(Status::unavailable(SHUTTING_DOWN))));
        }
        loop {
            match ready!(Pin::new(&mut this.statuses).poll_next(cx)) {
                // Two changes between polls can bring back the status last sent: not a change.
                Some(status) if this.last_sent == Some(status) => {}
                Some(status) => {
                    this.last_sent = Some(status);
                    return Poll::Ready(Some(Ok(response(status))));
                }
                // The registry keeps every sender while a receiver may use it: not expected.
                None => {
                    this.ended = true;
                    return Poll::Ready(None);
                }
            }
        }
    }
}

impl fmt::Debug for WatchStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WatchStream")
            .field("last_sent", &self.last_sent)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

fn response(status: WireStatus) -> HealthCheckResponse {
    HealthCheckResponse {
        status: status.into(),
    }
}

/// What the reporter and the service share.
#[derive(Debug)]
struct Registry {
    names: Mutex<Names>,
    /// Says SERVICE_UNKNOWN forever; for watches of names that get no entry of their own.
    unknown: watch::Sender<WireStatus>,
    /// Turns true when Watch calls must end.
    ending: watch::Sender<bool>,
}

#[derive(Debug, Default)]
struct Names {
    entries: HashMap<String, Entry>,
    /// How many entries are not registered (only watched).
    unregistered: usize,
}

#[derive(Debug)]
struct Entry {
    status: watch::Sender<WireStatus>,
    /// Set by the reporter; otherwise the entry only exists for its watchers.
    registered: bool,
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, Names> {
        // Every update leaves `Names` consistent, so a panic elsewhere does not spoil it.
        self.names.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn registered_status(&self, name: &str) -> Option<WireStatus> {
        self.lock()
            .entries
            .get(name)
            .filter(|entry| entry.registered)
            .map(|entry| *entry.status.borrow())
    }

    fn subscribe(self: &Arc<Self>, name: String) -> WatchStream {
        let mut guard = self.lock();
        let names = &mut *guard;
        let (receiver, release) = match names.entries.get(&name) {
            Some(entry) => {
                let release = (!entry.registered).then_some(name);
                (entry.status.subscribe(), release)
            }
            None if name.len() <= MAX_NAME_BYTES
                && names.unregistered < MAX_WATCHED_UNKNOWN_NAMES =>
            {
                let (sender, receiver) = watch::channel(WireStatus::ServiceUnknown);
                let entry = Entry {
                    status: sender,
                    registered: false,
                };
                names.entries.insert(name.clone(), entry);
                names.unregistered += 1;
                (receiver, Some(name))
            }
            None => (self.unknown.subscribe(), None),
        };
        drop(guard);
        let mut ending = self.ending.subscribe();
        WatchStream {
            statuses: StatusStream::new(receiver),
            last_sent: None,
            ending: Box::pin(async move {
                // An error means the registry is gone, which ends the watch too.
                let _ = ending.wait_for(|ending| *ending).await;
            }),
            ended: false,
            _release: release.map(|name| Release {
                registry: Arc::clone(self),
                name,
            }),
        }
    }
}

/// Removes the entry of an unregistered name once no Watch call uses it.
#[derive(Debug)]
struct Release {
    registry: Arc<Registry>,
    name: String,
}

impl Drop for Release {
    fn drop(&mut self) {
        let mut guard = self.registry.lock();
        let names = &mut *guard;
        let unused = names
            .entries
            .get(&self.name)
            .is_some_and(|entry| !entry.registered && entry.status.receiver_count() == 0);
        if unused {
            names.entries.remove(&self.name);
            names.unregistered -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    //! The gRPC health-checking protocol (grpc/grpc doc/health-checking.md), through the service
    //! trait.

    use std::time::Duration;

    use tokio_stream::StreamExt as _;
    use tonic::Code;

    use super::*;

    /// Long enough for a message that was going to come to arrive.
    const QUIET: Duration = Duration::from_millis(300);

    fn request(name: &str) -> Request<HealthCheckRequest> {
        Request::new(HealthCheckRequest {
            service: name.to_owned(),
        })
    }

    async fn check(service: &HealthService, name: &str) -> Result<WireStatus, Code> {
        service
            .check(request(name))
            .await
            .map(|response| response.into_inner().status())
            .map_err(|status| status.code())
    }

    async fn watch(service: &HealthService, name: &str) -> WatchStream {
        service
            .watch(request(name))
            .await
            .expect("Watch is accepted")
            .into_inner()
    }

    /// The next message of `stream`, which must come within a second.
    async fn next(stream: &mut WatchStream) -> Result<WireStatus, Code> {
        tokio::time::timeout(Duration::from_secs(1), stream.next())
            .await
            .expect("a message within a second")
            .expect("the stream is still open")
            .map(|response| response.status())
            .map_err(|status| status.code())
    }

    /// Neither a message nor the end of `stream` within [`QUIET`].
    async fn assert_quiet(stream: &mut WatchStream) {
        if let Ok(message) = tokio::time::timeout(QUIET, stream.next()).await {
            panic!("expected no message and no end within {QUIET:?}, got {message:?}");
        }
    }

    fn unregistered_entries(reporter: &HealthReporter) -> (usize, usize) {
        let names = reporter.registry.lock();
        let counted = names.entries.values().filter(|e| !e.registered).count();
        (counted, names.unregistered)
    }

    // gRPC health-checking protocol: Check of an unknown service answers NOT_FOUND.
    #[tokio::test]
    async fn check_of_unregistered_name_is_not_found() {
        let (reporter, service) = reporter_and_service();
        reporter.set_serving("known");
        assert_eq!(check(&service, "known").await, Ok(WireStatus::Serving));
        assert_eq!(
            check(&service, "no.such.Service").await,
            Err(Code::NotFound)
        );
        assert_eq!(check(&service, "").await, Err(Code::NotFound));
    }

    // gRPC health-checking protocol: Watch of an unknown service sends SERVICE_UNKNOWN and does
    // not end the call (tonic-health ends it with NOT_FOUND).
    #[tokio::test]
    async fn watch_of_unregistered_name_sends_service_unknown_and_stays_open() {
        let (_reporter, service) = reporter_and_service();
        let mut stream = watch(&service, "no.such.Service").await;
        assert_eq!(next(&mut stream).await, Ok(WireStatus::ServiceUnknown));
        assert_quiet(&mut stream).await;
    }

    // gRPC health-checking protocol: when a watched unknown service becomes known, its status is
    // sent on the open call.
    #[tokio::test]
    async fn watch_of_unregistered_name_hears_its_later_registration() {
        let (reporter, service) = reporter_and_service();
        let mut stream = watch(&service, "later").await;
        assert_eq!(next(&mut stream).await, Ok(WireStatus::ServiceUnknown));
        reporter.set_not_serving("later");
        assert_eq!(next(&mut stream).await, Ok(WireStatus::NotServing));
        assert_eq!(check(&service, "later").await, Ok(WireStatus::NotServing));
        assert_eq!(unregistered_entries(&reporter), (0, 0));
    }

    // gRPC health-checking protocol: an entry made for a watcher must not make Check answer for
    // a name nobody registered.
    #[tokio::test]
    async fn check_of_a_name_that_is_only_watched_is_not_found() {
        let (_reporter, service) = reporter_and_service();
        let _stream = watch(&service, "watched").await;
        assert_eq!(check(&service, "watched").await, Err(Code::NotFound));
    }

    // gRPC health-checking protocol: Watch sends the current status first, then only changes.
    #[tokio::test]
    async fn watch_sends_the_current_status_then_only_changes() {
        let (reporter, service) = reporter_and_service();
        reporter.set_serving("readiness");
        let mut stream = watch(&service, "readiness").await;
        assert_eq!(next(&mut stream).await, Ok(WireStatus::Serving));
        reporter.set_serving("readiness");
        assert_quiet(&mut stream).await;
        reporter.set_not_serving("readiness");
        assert_eq!(next(&mut stream).await, Ok(WireStatus::NotServing));
        // Changed and changed back before the stream is polled: nothing new to say.
        reporter.set_serving("readiness");
        reporter.set_not_serving("readiness");
        assert_quiet(&mut stream).await;
        reporter.set_status("readiness", ServingStatus::Unknown);
        assert_eq!(next(&mut stream).await, Ok(WireStatus::Unknown));
    }

    // Clients choose the names they watch: the entry of an unregistered name lives only as long
    // as its watchers.
    #[tokio::test]
    async fn entry_of_an_unregistered_name_goes_with_its_last_watcher() {
        let (reporter, service) = reporter_and_service();
        let first = watch(&service, "gone").await;
        let second = watch(&service, "gone").await;
        assert_eq!(unregistered_entries(&reporter), (1, 1));
        drop(first);
        assert_eq!(unregistered_entries(&reporter), (1, 1));
        drop(second);
        assert_eq!(unregistered_entries(&reporter), (0, 0));
        // A registered name stays whatever its watchers do.
        reporter.set_serving("kept");
        drop(watch(&service, "kept").await);
        assert_eq!(check(&service, "kept").await, Ok(WireStatus::Serving));
    }

    // Clients choose the names they watch: past the caps, a watch gets no entry of its own but
    // still gets SERVICE_UNKNOWN and an open call (gRPC health-checking protocol).
    #[tokio::test]
    async fn watches_past_the_caps_make_no_entry_and_still_stay_open() {
        let (reporter, service) = reporter_and_service();
        let mut kept = Vec::new();
        for index in 0..MAX_WATCHED_UNKNOWN_NAMES {
            kept.push(watch(&service, &format!("name-{index}")).await);
        }
        let full = (MAX_WATCHED_UNKNOWN_NAMES, MAX_WATCHED_UNKNOWN_NAMES);
        assert_eq!(unregistered_entries(&reporter), full);
        let mut over_count = watch(&service, "one-too-many").await;
        let mut too_long = watch(&service, &"x".repeat(MAX_NAME_BYTES + 1)).await;
        assert_eq!(unregistered_entries(&reporter), full);
        for stream in [&mut over_count, &mut too_long] {
            assert_eq!(next(stream).await, Ok(WireStatus::ServiceUnknown));
        }
        assert_quiet(&mut over_count).await;
        drop((over_count, too_long));
        assert_eq!(unregistered_entries(&reporter), full);
        kept.clear();
        assert_eq!(unregistered_entries(&reporter), (0, 0));
        // A name of the maximum length is fine.
        let _stream = watch(&service, &"x".repeat(MAX_NAME_BYTES)).await;
        assert_eq!(unregistered_entries(&reporter), (1, 1));
    }

    // A graceful shutdown waits for every call: Watch calls must end or the drain lasts until
    // its timeout.
    #[tokio::test]
    async fn end_watches_ends_every_watch_with_unavailable_and_refuses_new_ones() {
        let (reporter, service) = reporter_and_service();
        reporter.set_serving("liveness");
        let mut known = watch(&service, "liveness").await;
        let mut unknown = watch(&service, "unknown").await;
        assert_eq!(next(&mut known).await, Ok(WireStatus::Serving));
        assert_eq!(next(&mut unknown).await, Ok(WireStatus::ServiceUnknown));
        reporter.end_watches();
        for stream in [&mut known, &mut unknown] {
            assert_eq!(next(stream).await, Err(Code::Unavailable));
            assert!(
                stream.next().await.is_none(),
                "the stream ends after its status"
            );
        }
        let refused = service.watch(request("liveness")).await;
        assert_eq!(
            refused.map(|_| ()).map_err(|s| s.code()),
            Err(Code::Unavailable)
        );
        // Check still answers (liveness stays SERVING while draining).
        assert_eq!(check(&service, "liveness").await, Ok(WireStatus::Serving));
    }

    // Liveness stays SERVING while draining, so that a liveness probe does not kill a process
    // that is shutting down cleanly; the drained names turn NOT_SERVING.
    #[tokio::test]
    async fn draining_turns_drained_names_not_serving_but_not_liveness() {
        let (reporter, service) = reporter_and_service();
        for name in DRAINED_NAMES.into_iter().chain([LIVENESS]) {
            reporter.set_serving(name);
        }
        let mut readiness = watch(&service, READINESS).await;
        assert_eq!(next(&mut readiness).await, Ok(WireStatus::Serving));
        set_draining(&reporter);
        assert_eq!(next(&mut readiness).await, Ok(WireStatus::NotServing));
        for name in DRAINED_NAMES {
            assert_eq!(
                check(&service, name).await,
                Ok(WireStatus::NotServing),
                "{name:?}"
            );
        }
        assert_eq!(check(&service, LIVENESS).await, Ok(WireStatus::Serving));
    }
}
