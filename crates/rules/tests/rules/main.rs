//! The integration tests of arbiter-rules, in one test binary: perft suites, FIDE rules,
//! Chess960, SAN in every language, the move-generation oracle, properties, the winnability
//! sets and the verdicts. Run one part with `cargo test -p arbiter-rules --test rules perft::`.

mod chess960;
mod event_rules;
mod golden;
mod oracle;
mod perft;
mod properties;
mod refusal_causes;
mod rules_fide;
mod san_languages;
mod setup;
mod unwinnable;
mod verdicts;
