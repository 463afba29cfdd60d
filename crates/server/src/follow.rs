//! The `FollowGame` stream: one game followed while it is played, its state (an
//! [`arbiter_rules::Referee`] and the incidents it ruled on) living only in the stream's task.
//!
//! The first request message starts the game ([`FollowGameStart`]: the position, the rule set,
//! the moves and incidents so far, replayed by [`Referee::replay`]); every later message (a
//! move, an incident, a correction) is answered by exactly one response, in order. What the
//! game cannot take (an illegal move, a ply out of order, an incident that does not fit the
//! position) is answered in-band and the stream goes on; the stream fails as a whole only for a
//! bad first message, its bounds (plies and incidents: RESOURCE_EXHAUSTED; idle time:
//! DEADLINE_EXCEEDED), the client's deadline, and the server's drain or its connection's
//! maximum age (UNAVAILABLE, as soon as the GOAWAY is sent: a followed game outlasts the grace,
//! and a stream cut when the connection closes would tell its client nothing).
//!
//! The stream is built as the AdjudicateGames stream of [`crate::service`] is: a task per
//! stream holding the call's admission (its place under `--max-follow-streams`), each message's
//! work on a worker ([`Workers::run_patiently`]) bounded by `--request-timeout`, each message's
//! request bytes given back once its work is done, and the answers handed over through a
//! bounded channel: a client that stops reading stops the task, which then stops reading its
//! requests (HTTP/2 flow control holds the client back).

use std::time::Duration;

use arbiter_proto::convert::{self, ConvertError, ErrorReason, Notation};
use arbiter_proto::v1::{
    FollowCorrection, FollowGameRequest, FollowGameResponse, FollowGameStart, FollowMove,
    IllegalMoveNotice, follow_game_request,
};
use arbiter_rules::{
    AdjudicationRequest, GameOver, Incident, MoveError, Position, Referee, SanLanguage,
    TimedIncident,
};
use tokio::sync::{mpsc, oneshot, watch};
use tonic::{Status, Streaming};

use crate::guard::{Admission, CallDeadline};
use crate::limits::{self, Limits};
use crate::workers::Workers;

/// The bounds of FollowGame streams besides the server's [`Limits`] (whose `max_moves` bounds
/// the plies of a stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FollowBounds {
    /// A stream that sends no message, or whose client reads no answer, for this long is ended
    /// with DEADLINE_EXCEEDED (`--follow-idle-timeout`).
    pub idle: Duration,
    /// Most incidents one stream rules on, those of its start included
    /// (`--max-follow-incidents`): each keeps its ruling (a few hundred bytes).
    pub max_incidents: usize,
}

impl Default for FollowBounds {
    fn default() -> Self {
        Self {
            idle: limits::default_duration(limits::DEFAULT_FOLLOW_IDLE_TIMEOUT),
            max_incidents: limits::usize_of(limits::DEFAULT_MAX_FOLLOW_INCIDENTS),
        }
    }
}

/// Answers of a FollowGame stream that wait for the client in the stream's channel: beyond
/// them (and what the transport holds), the stream's task waits, and reads no more requests.
pub const FOLLOW_BUFFER: usize = 4;

/// The gauge of FollowGame streams open now.
pub const FOLLOW_STREAMS_GAUGE: &str = "arbiter_follow_streams_open";

/// The counter of FollowGame request messages, by `kind` and `outcome`.
pub const FOLLOW_MESSAGES_COUNTER: &str = "arbiter_follow_messages_total";

/// The `kind` label values of [`FOLLOW_MESSAGES_COUNTER`]: the request's `message` (`empty`
/// when unset).
pub const MESSAGE_KINDS: [&str; 5] = ["start", "move", "incident", "correction", "empty"];

/// The `outcome` label values of [`FOLLOW_MESSAGES_COUNTER`]: `applied` (the game took it),
/// `illegal` (an illegal move, answered with what the Laws make of it), `resent` (answered
/// again, not applied), `refused` (an in-band error), `failed` (it ended the stream: a bad
/// start, a bound).
pub const MESSAGE_OUTCOMES: [&str; 5] = ["applied", "illegal", "resent", "refused", "failed"];

/// Why FollowGame is refused over gRPC-Web (UNIMPLEMENTED).
pub const NOT_OVER_GRPC_WEB: &str = "FollowGame is a bidirectional stream, which gRPC-Web cannot carry (a browser sends its request body whole before it reads an answer): in a browser, call ApplyMove for each move (is it legal, the position after it) and AdjudicateGame with the game so far, its rules and incidents (the claims, the rulings, the end); or follow the game from a server over gRPC";

/// Why a FollowGame stream ends when the server shuts down.
const FOLLOW_DRAINED: &str = "the server is shutting down: every message received has its answer; open a new stream (on another replica) with start.game = the moves so far and start.incidents = the incidents so far";

/// Why a FollowGame stream ends when its connection reaches its maximum age.
pub const FOLLOW_AGED: &str = "the connection reached its maximum age (--max-connection-age) and is closing: every message received has its answer; open a new stream (on a new connection) with start.game = the moves so far and start.incidents = the incidents so far";

/// Describes the follow metrics and creates their series at 0.
pub fn describe_metrics() {
    metrics::describe_gauge!(
        FOLLOW_STREAMS_GAUGE,
        "FollowGame streams open now; at most --max-follow-streams"
    );
    metrics::gauge!(FOLLOW_STREAMS_GAUGE).set(0.0);
    metrics::describe_counter!(
        FOLLOW_MESSAGES_COUNTER,
        "FollowGame request messages, by kind (start, move, incident, correction, empty) and \
         outcome (applied, illegal, resent, refused in-band, failed: ended the stream)"
    );
    for kind in MESSAGE_KINDS {
        for outcome in MESSAGE_OUTCOMES {
            metrics::counter!(FOLLOW_MESSAGES_COUNTER, "kind" => kind, "outcome" => outcome)
                .increment(0);
        }
    }
}

/// Counts one open stream in [`FOLLOW_STREAMS_GAUGE`] for as long as it lives.
struct OpenStream;

impl OpenStream {
    fn new() -> Self {
        metrics::gauge!(FOLLOW_STREAMS_GAUGE).increment(1.0);
        Self
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        metrics::gauge!(FOLLOW_STREAMS_GAUGE).decrement(1.0);
    }
}

/// What a FollowGame stream's task works with: the service's bounds, workers and drain.
pub(crate) struct Context {
    /// The server's limits (`max_moves` bounds the plies of a stream; `analysis`).
    pub limits: Limits,
    /// Where each message's work runs.
    pub workers: Workers,
    /// Longest work of one message (`--request-timeout`).
    pub message_timeout: Duration,
    /// The stream's own bounds.
    pub bounds: FollowBounds,
    /// Turns true when the server drains: the stream ends between messages.
    pub draining: watch::Receiver<bool>,
    /// Turns true when the stream's connection reached its maximum age
    /// ([`crate::transport::ConnectionAged`]): the stream ends between messages.
    pub aged: watch::Receiver<bool>,
}

/// Starts the task of one FollowGame stream: its answers, and the status it ends with, if any.
pub(crate) fn start_stream(
    inbound: Streaming<FollowGameRequest>,
    context: Context,
    admission: Option<Admission>,
    deadline: Option<CallDeadline>,
) -> (
    mpsc::Receiver<FollowGameResponse>,
    oneshot::Receiver<Status>,
) {
    let (tx, responses) = mpsc::channel(FOLLOW_BUFFER);
    let (end_tx, end) = oneshot::channel();
    tokio::spawn(run(inbound, context, admission, deadline, tx, end_tx));
    (responses, end)
}

/// Completes once `draining` is true; never when its sender is gone while it is false.
pub(crate) async fn drained(draining: &mut watch::Receiver<bool>) {
    if draining.wait_for(|draining| *draining).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// The task of one FollowGame stream: [`follow`] within the client's deadline, if any.
async fn run(
    inbound: Streaming<FollowGameRequest>,
    context: Context,
    admission: Option<Admission>,
    deadline: Option<CallDeadline>,
    tx: mpsc::Sender<FollowGameResponse>,
    end: oneshot::Sender<Status>,
) {
    let _open = OpenStream::new();
    let following = follow(inbound, &context, admission.as_ref(), &tx);
    let ended = match deadline {
        Some(CallDeadline(deadline)) => tokio::time::timeout_at(deadline, following)
            .await
            .unwrap_or_else(|_| {
                Some(Status::deadline_exceeded(
                    "the call's deadline (grpc-timeout) passed: the stream is closed; reopen it with the game so far",
                ))
            }),
        None => following.await,
    };
    if let Some(status) = ended {
        let _ = end.send(status);
    }
}

/// The messages of one stream, answered in order until it ends: `None` when it ended cleanly
/// (the client half-closed) or its client is gone, else the status to end it with.
async fn follow(
    mut inbound: Streaming<FollowGameRequest>,
    context: &Context,
    admission: Option<&Admission>,
    tx: &mpsc::Sender<FollowGameResponse>,
) -> Option<Status> {
    let (limits, bounds) = (context.limits, context.bounds);
    let idle = || {
        Some(Status::deadline_exceeded(format!(
            "no request message received and no answer read for {} s \
             (--follow-idle-timeout): the stream is closed; reopen it with the game so far",
            bounds.idle.as_secs_f64()
        )))
    };
    let mut draining = context.draining.clone();
    let mut aged = context.aged.clone();
    let mut game: Option<Followed> = None;
    let mut index: u32 = 0;
    loop {
        let received = tokio::select! {
            biased;
            () = drained(&mut draining) => return Some(Status::unavailable(FOLLOW_DRAINED)),
            () = drained(&mut aged) => return Some(Status::unavailable(FOLLOW_AGED)),
            () = tx.closed() => return None,
            received = tokio::time::timeout(bounds.idle, inbound.message()) => received,
        };
        let message = match received {
            Ok(Ok(Some(message))) => message,
            Ok(Ok(None)) => return None,
            Ok(Err(status)) => return Some(status),
            Err(_) => return idle(),
        };
        // Given back once the message's work is done: its answer is small, and a client that
        // does not read it must not hold request bytes others wait for.
        let message_bytes = admission.and_then(Admission::take_message_bytes);
        let state = game.take();
        let work = context.workers.run_patiently((), move || {
            let mut state = state;
            let answered = answer(&mut state, index, message, limits, bounds);
            Ok((state, answered))
        });
        let worked = tokio::select! {
            worked = tokio::time::timeout(context.message_timeout, work) => worked,
            () = tx.closed() => return None,
        };
        drop(message_bytes);
        let (state, (answered, kind, outcome)) = match worked {
            Ok(Ok(worked)) => worked,
            Ok(Err(status)) => return Some(status),
            Err(_) => {
                return Some(Status::deadline_exceeded(format!(
                    "request message {index} took more than {} ms (--request-timeout): the stream is closed; reopen it with the game so far",
                    context.message_timeout.as_millis()
                )));
            }
        };
        game = state;
        metrics::counter!(FOLLOW_MESSAGES_COUNTER, "kind" => kind, "outcome" => outcome)
            .increment(1);
        let response = match answered {
            Ok(response) => response,
            Err(status) => return Some(status),
        };
        // The answer first, when there is room for it: a drain or an aged connection ends the
        // stream after it (every message received has its answer), or now if its client does
        // not read.
        let sent = tokio::select! {
            biased;
            sent = tokio::time::timeout(bounds.idle, tx.send(response)) => sent,
            () = drained(&mut draining) => return Some(Status::unavailable(FOLLOW_DRAINED)),
            () = drained(&mut aged) => return Some(Status::unavailable(FOLLOW_AGED)),
        };
        match sent {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return None, // the client is gone
            Err(_) => return idle(),
        }
        index = index.saturating_add(1);
    }
}

/// A message's answer (or the status that ends the stream), with its `kind` and `outcome`
/// labels.
type Answered = (
    Result<FollowGameResponse, Status>,
    &'static str,
    &'static str,
);

/// Answers request message `index`, `state` being the game so far (`None` before `start`).
fn answer(
    state: &mut Option<Followed>,
    index: u32,
    request: FollowGameRequest,
    limits: Limits,
    bounds: FollowBounds,
) -> Answered {
    use follow_game_request::Message;
    let kind = match &request.message {
        Some(Message::Start(_)) => "start",
        Some(Message::Move(_)) => "move",
        Some(Message::Incident(_)) => "incident",
        Some(Message::Correction(_)) => "correction",
        None => "empty",
    };
    let Some(game) = state.as_mut() else {
        let Some(Message::Start(start)) = request.message else {
            let status = ConvertError::new(
                "start",
                ErrorReason::MissingField,
                format!(
                    "the first message must be start (the game to follow), not {}",
                    if kind == "empty" {
                        "an empty message".to_owned()
                    } else {
                        format!("a {kind}")
                    }
                ),
            );
            return (Err(status.into()), kind, "failed");
        };
        return match Followed::start(&start, limits, bounds) {
            Ok(followed) => {
                let ply = followed.referee.game().ply();
                let response = followed.response(index, ply);
                *state = Some(followed);
                (Ok(response), kind, "applied")
            }
            Err(status) => (Err(status), kind, "failed"),
        };
    };
    let answered = match request.message {
        Some(Message::Start(_)) => Err(Refused::InBand(
            ConvertError::new(
                "start",
                ErrorReason::InvalidValue,
                "only the first message may be start: open a new stream to follow another game",
            ),
            0,
        )),
        Some(Message::Move(mv)) => game.play(index, &mv, limits),
        Some(Message::Incident(incident)) => game.incident(index, &incident, bounds),
        Some(Message::Correction(correction)) => game.correct(index, &correction, limits),
        None => Err(Refused::InBand(
            ConvertError::missing("message", "a move, an incident or a correction"),
            0,
        )),
    };
    match answered {
        Ok((response, outcome)) => (Ok(response), kind, outcome),
        Err(Refused::InBand(error, ply)) => {
            let mut response = game.response(index, ply);
            response.error = Some(convert::convert_error_to_wire(&error));
            (Ok(response), kind, "refused")
        }
        Err(Refused::Bound(status)) => (Err(status), kind, "failed"),
    }
}

/// Why a message was not taken.
enum Refused {
    /// Answered in-band: the error, and the ply the message carried.
    InBand(ConvertError, usize),
    /// The stream's bound (plies, incidents): the stream ends with this status.
    Bound(Status),
}

/// One followed game: the referee that has seen it so far, and the incidents it ruled on as
/// they were received (one per ruling of the referee, in order: a resent incident is found
/// here).
struct Followed {
    referee: Referee,
    incidents: Vec<TimedIncident>,
    notation: Notation,
    /// The analysis of the verdict once the game has ended (`--analysis`).
    budget: arbiter_rules::AnalysisBudget,
}

impl Followed {
    /// Reads and replays the stream's first message.
    fn start(
        start: &FollowGameStart,
        limits: Limits,
        bounds: FollowBounds,
    ) -> Result<Self, Status> {
        let notation = Notation::from_wire(start.san_language, start.castling_notation, "start")?;
        let rules = convert::rule_set_from_wire(start.rules.as_ref(), "start.rules")?;
        // Absent: a new game from the standard start position.
        let new_game = arbiter_proto::v1::Game::default();
        let wire = start.game.as_ref().unwrap_or(&new_game);
        let game = convert::game_from_wire_in(
            wire,
            "start.game",
            limits.max_moves,
            limits.analysis,
            notation.language,
        )?;
        if let Some(outcome) = game.outcome()
            && game.plies_after_end() > 0
        {
            let index = outcome.ply;
            return Err(convert::game_over_error(
                &format!("start.game.moves[{index}]"),
                &GameOver { outcome },
                wire.moves.get(index).map_or("", String::as_str),
                Some(index + 1),
            )
            .into());
        }
        let incidents = convert::incidents_from_wire(
            &start.incidents,
            bounds.max_incidents,
            "--max-follow-incidents",
            "start.incidents",
            notation.language,
        )?;
        let referee = Referee::replay(
            game.restarted(),
            game.moves(),
            &incidents,
            rules,
            limits.analysis,
        )
        .map_err(|error| {
            let field = match &error {
                arbiter_rules::RefereeError::OutOfOrder { index, .. } => {
                    format!("start.incidents[{index}]")
                }
                _ => "start".to_owned(),
            };
            convert::referee_error(&field, &error)
        })?;
        Ok(Self {
            referee,
            incidents,
            notation,
            budget: limits.analysis,
        })
    }

    fn language(&self) -> SanLanguage {
        self.notation.language
    }

    /// The state of the game now, answering message `index` that carried `ply`.
    fn response(&self, index: u32, ply: usize) -> FollowGameResponse {
        let game = self.referee.game();
        let position = game.position();
        let language = self.language();
        let [white, black] = self.referee.time_added();
        let mut response = FollowGameResponse {
            request_index: index,
            ply: wire_u32(ply),
            ply_count: wire_u32(game.ply()),
            fen: self.notation.fen(position),
            status: Some(convert::status_to_wire(position)),
            white_seconds_added: white,
            black_seconds_added: black,
            required_move: self
                .referee
                .required_move()
                .map(|(mv, _)| convert::move_to_wire_in(position, &mv, language).0),
            ..FollowGameResponse::default()
        };
        if self.referee.outcome().is_some() {
            let verdict = self.referee.verdict(&AdjudicationRequest {
                event: None,
                claim_draw: false,
                budget: self.budget,
            });
            response.outcome = verdict.outcome.as_ref().map(convert::outcome_to_wire);
            response.explanation = verdict.explanation;
            response.event_result = verdict
                .event_result
                .as_ref()
                .map(convert::event_result_to_wire);
        } else {
            // The referee's claims: none while the Laws require a move (7.5.2, 9.5.3).
            response.claims = self
                .referee
                .claims()
                .iter()
                .map(|claim| convert::claim_to_wire_in(game.position(), claim, language))
                .collect();
        }
        response
    }

    /// The position after the first `ply` plies.
    fn position_at(&self, ply: usize) -> Position {
        let game = self.referee.game();
        let mut position = game.start().clone();
        for mv in &game.moves()[..ply.min(game.ply())] {
            position = position.play(mv);
        }
        position
    }

    /// A move: the next ply played, an illegal one answered with what the Laws make of it, a
    /// resend answered again.
    fn play(
        &mut self,
        index: u32,
        sent: &FollowMove,
        limits: Limits,
    ) -> Result<(FollowGameResponse, &'static str), Refused> {
        let language = self.language();
        let played = self.referee.game().ply();
        let ply = sent.ply as usize;
        let text = sent.r#move.as_str();
        if text.chars().count() > arbiter_rules::MAX_MOVE_TEXT_LEN {
            return Err(Refused::InBand(
                ConvertError::new(
                    "move.move",
                    ErrorReason::InvalidValue,
                    format!(
                        "a move is at most {} characters (got {})",
                        arbiter_rules::MAX_MOVE_TEXT_LEN,
                        text.chars().count()
                    ),
                ),
                ply,
            ));
        }
        if ply == 0 {
            return Err(Refused::InBand(
                ConvertError::missing(
                    "move.ply",
                    &format!(
                        "the ply the move makes (1-based: the next is {})",
                        played + 1
                    ),
                ),
                ply,
            ));
        }
        if ply <= played {
            let before = self.position_at(ply - 1);
            let recorded = self.referee.game().moves()[ply - 1];
            let same =
                convert::parse_move_in(&before, text, language).is_ok_and(|mv| mv == recorded);
            if !same {
                return Err(Refused::InBand(
                    ConvertError::new(
                        "move.ply",
                        ErrorReason::InvalidValue,
                        format!(
                            "ply {ply} was played as {}, not {}: send a correction from ply {ply} to replace it",
                            before.san_in(&recorded, language),
                            text.trim()
                        ),
                    )
                    .with_metadata("ply", ply.to_string()),
                    ply,
                ));
            }
            let mut response = self.response(index, ply);
            response.resent = true;
            response.r#move = Some(convert::move_to_wire_in(&before, &recorded, language).0);
            return Ok((response, "resent"));
        }
        if ply > played + 1 {
            return Err(Refused::InBand(
                ConvertError::new(
                    "move.ply",
                    ErrorReason::InvalidValue,
                    format!(
                        "ply {ply} is beyond the next ply, {next}: the message of ply {next} is missing (send it, or a correction from ply {next})",
                        next = played + 1
                    ),
                )
                .with_metadata("ply", ply.to_string()),
                ply,
            ));
        }
        if text.trim().is_empty() {
            return Err(Refused::InBand(
                ConvertError::missing("move.move", "a move in SAN or UCI"),
                ply,
            ));
        }
        if let Err(error) = self.referee.check_open() {
            let refused = match error {
                arbiter_rules::RefereeError::GameOver { outcome, .. } => {
                    convert::game_over_error("move.move", &GameOver { outcome }, text, Some(ply))
                }
                other => convert::referee_error("move.move", &other),
            };
            return Err(Refused::InBand(refused, ply));
        }
        let before = self.referee.game().position().clone();
        let mv = match convert::parse_move_in(&before, text, language) {
            Ok(mv) => mv,
            Err(error) if error.illegality().is_some() => {
                let mut response = self.response(index, ply);
                response.illegal = Some(self.illegal_notice(text, &error));
                return Ok((response, "illegal"));
            }
            Err(error) => {
                return Err(Refused::InBand(
                    convert::move_error("move.move", &error, text, Some(ply)),
                    ply,
                ));
            }
        };
        if ply > limits.max_moves {
            return Err(Refused::Bound(Status::resource_exhausted(format!(
                "ply {ply} is beyond the server's limit of {} plies on one stream (--max-moves): the stream is closed",
                limits.max_moves
            ))));
        }
        self.referee
            .play(mv)
            .map_err(|error| Refused::InBand(convert::referee_error("move.move", &error), ply))?;
        let mut response = self.response(index, ply);
        response.r#move = Some(convert::describe_move_in(
            &before,
            &mv,
            self.referee.game().position(),
            language,
        ));
        Ok((response, "applied"))
    }

    /// What the Laws make of the illegal move `text` (which `error` refused) once acted on: the
    /// ruling a copy of the referee gives to the opponent's claim.
    fn illegal_notice(&self, text: &str, error: &MoveError) -> IllegalMoveNotice {
        let illegality = error.illegality();
        let position = self.referee.game().position();
        let mut acted_on = self.referee.clone();
        let if_acted_on = acted_on
            .incident(Incident::IllegalMove {
                side: position.side_to_move(),
                act: arbiter_rules::IllegalAct::Move,
                written: self.language().to_english(text),
                acted_on: arbiter_rules::ActedOn::Claimed,
            })
            .ok()
            .map(|ruling| convert::ruling_to_wire(&ruling, position, self.language()));
        IllegalMoveNotice {
            r#move: text.trim().to_owned(),
            reason: error.reason(),
            cause: illegality.map(|i| i.cause().to_owned()).unwrap_or_default(),
            fide_article: illegality
                .and_then(|i| i.article())
                .unwrap_or_default()
                .to_owned(),
            if_acted_on,
            may_stand: self.referee.rules().unclaimed_illegal_move_stands(),
        }
    }

    /// An incident at the current ply: ruled on, or a resend answered again.
    fn incident(
        &mut self,
        index: u32,
        sent: &arbiter_proto::v1::Incident,
        bounds: FollowBounds,
    ) -> Result<(FollowGameResponse, &'static str), Refused> {
        let played = self.referee.game().ply();
        let ply = sent.ply as usize;
        let timed = convert::incident_from_wire(sent, "incident", self.language())
            .map_err(|error| Refused::InBand(error, ply))?;
        if let Some(at) = self.incidents.iter().position(|known| *known == timed) {
            let ruling = &self.referee.rulings()[at];
            let mut response = self.response(index, ply);
            response.resent = true;
            response.ruling = Some(convert::ruling_to_wire(
                ruling,
                &self.position_at(ruling.ply),
                self.language(),
            ));
            return Ok((response, "resent"));
        }
        if ply != played {
            return Err(Refused::InBand(
                ConvertError::new(
                    "incident.ply",
                    ErrorReason::InvalidValue,
                    format!(
                        "incidents are sent as they happen: ply {ply} is not the number of plies played, {played}"
                    ),
                )
                .with_metadata("ply", ply.to_string()),
                ply,
            ));
        }
        if self.incidents.len() >= bounds.max_incidents {
            return Err(Refused::Bound(Status::resource_exhausted(format!(
                "more than {} incidents on one stream (--max-follow-incidents): the stream is closed",
                bounds.max_incidents
            ))));
        }
        let position = self.referee.game().position().clone();
        let ruling = self
            .referee
            .incident(timed.incident.clone())
            .map_err(|error| Refused::InBand(convert::referee_error("incident", &error), ply))?;
        self.incidents.push(timed);
        let mut response = self.response(index, ply);
        response.ruling = Some(convert::ruling_to_wire(&ruling, &position, self.language()));
        Ok((response, "applied"))
    }

    /// A correction: the game rebuilt from its start with the moves before `from_ply`, the
    /// incidents before it, and the moves sent; nothing changes if one of them is refused.
    fn correct(
        &mut self,
        index: u32,
        sent: &FollowCorrection,
        limits: Limits,
    ) -> Result<(FollowGameResponse, &'static str), Refused> {
        let played = self.referee.game().ply();
        let from = sent.from_ply as usize;
        let refused = |error| Refused::InBand(error, from);
        if from == 0 || from > played + 1 {
            return Err(refused(ConvertError::new(
                "correction.from_ply",
                ErrorReason::InvalidValue,
                format!(
                    "from_ply {from} is not a ply that can be replaced: 1 to {} (the plies played, {played}, plus one)",
                    played + 1
                ),
            )));
        }
        let kept = from - 1;
        if kept + sent.moves.len() > limits.max_moves {
            return Err(Refused::Bound(Status::resource_exhausted(format!(
                "the correction makes {} plies, beyond the server's limit of {} plies on one stream (--max-moves): the stream is closed",
                kept + sent.moves.len(),
                limits.max_moves
            ))));
        }
        let game = self.referee.game();
        let incidents: Vec<TimedIncident> = self
            .incidents
            .iter()
            .filter(|timed| timed.ply < from)
            .cloned()
            .collect();
        let mut referee = Referee::replay(
            game.restarted(),
            &game.moves()[..kept],
            &incidents,
            self.referee.rules().clone(),
            limits.analysis,
        )
        .map_err(|error| refused(convert::referee_error("correction.from_ply", &error)))?;
        let language = self.language();
        for (i, text) in sent.moves.iter().enumerate() {
            let field = format!("correction.moves[{i}]");
            let ply = kept + i + 1;
            if let Err(error) = referee.check_open() {
                return Err(refused(match error {
                    arbiter_rules::RefereeError::GameOver { outcome, .. } => {
                        convert::game_over_error(&field, &GameOver { outcome }, text, Some(ply))
                    }
                    other => convert::referee_error(&field, &other),
                }));
            }
            let mv = convert::move_from_wire_in(referee.game().position(), text, &field, language)
                .map_err(|error| {
                    refused(
                        error
                            .with_metadata("ply", ply.to_string())
                            .with_metadata("index", i.to_string()),
                    )
                })?;
            referee
                .play(mv)
                .map_err(|error| refused(convert::referee_error(&field, &error)))?;
        }
        let resent = referee.game().moves() == self.referee.game().moves()
            && incidents.len() == self.incidents.len();
        self.referee = referee;
        self.incidents = incidents;
        let mut response = self.response(index, from);
        response.resent = resent;
        Ok((response, if resent { "resent" } else { "applied" }))
    }
}

/// A count for a `uint32` field of the wire (saturating; counts here are bounded far below).
fn wire_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod memory {
    use std::mem::size_of;

    use arbiter_rules::{
        ClaimKind, Consequence, Game, Incident, Referee, RuleSet, Ruling, STARTING_FEN,
        TimedIncident,
    };

    use super::*;

    /// Heap and inline bytes of one ruling kept by the referee, and of the incident kept beside
    /// it by the stream ([`Followed::incidents`]).
    fn kept_bytes(ruling: &Ruling) -> usize {
        let strings = |incident: &Incident| match incident {
            Incident::IllegalMove { written, .. } => written.capacity(),
            Incident::Claim { announced, .. } => announced.as_ref().map_or(0, String::capacity),
            _ => 0,
        };
        let consequences: usize = ruling
            .consequences
            .iter()
            .map(|c| match c {
                Consequence::TimeAdded { article, .. } => article.capacity(),
                _ => 0,
            })
            .sum();
        size_of::<Ruling>()
            + ruling.explanation.capacity()
            + ruling.consequences.capacity() * size_of::<Consequence>()
            + consequences
            + 2 * strings(&ruling.incident)
            + size_of::<TimedIncident>()
    }

    /// Issue 29: what `--max-follow-incidents` (256 by default) holds at most in one stream,
    /// for docs/operations.md ("Following games"): 256 incorrect claims, each announcing its
    /// move (9.2.1.1, 9.5.3: the longest rulings that leave the game going), keep at most
    /// 160 KiB with their incidents (about 130 KiB measured: the bound leaves room for longer
    /// explanations).
    #[test]
    fn the_default_incident_bound_keeps_at_most_160_kib_of_rulings() {
        let max = limits::usize_of(limits::DEFAULT_MAX_FOLLOW_INCIDENTS);
        let start = Position::from_fen(STARTING_FEN).expect("start");
        let mut referee = Referee::new(
            Game::new(start),
            RuleSet::default(),
            limits::DEFAULT_ANALYSIS,
        );
        while referee.rulings().len() < max {
            let position = referee.game().position().clone();
            let side = position.side_to_move();
            let ruled = position.legal_moves().iter().find_map(|mv| {
                let mut tried = referee.clone();
                let ruling = tried
                    .incident(Incident::Claim {
                        side,
                        kind: ClaimKind::ThreefoldRepetition,
                        announced: Some(position.san(mv)),
                    })
                    .ok()?;
                (ruling.consequences.contains(&Consequence::ClaimRejected)
                    && tried.play(*mv).is_ok()
                    && tried.outcome().is_none())
                .then_some(tried)
            });
            referee = ruled.expect("a move to announce that keeps the game going");
        }
        let bytes: usize = referee.rulings().iter().map(kept_bytes).sum();
        eprintln!(
            "{max} rulings of incorrect announced claims: {bytes} bytes ({} a ruling, longest explanation {} bytes)",
            bytes / max,
            referee
                .rulings()
                .iter()
                .map(|r| r.explanation.len())
                .max()
                .unwrap_or(0)
        );
        assert!(bytes <= 160 * 1024, "{bytes} bytes");
    }
}
