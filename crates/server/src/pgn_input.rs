//! What `arbiter adjudicate` reads: a file or standard input, PGN as it is or compressed, told
//! apart by its first bytes (never by its name), and handed on as one or more parts of PGN text:
//!
//! | first bytes | format | parts | memory beyond the 64 KiB buffers |
//! |---|---|---|---|
//! | `28 B5 2F FD` (or a skippable frame, `5?  2A 4D 18`) | zstd, every frame | one | the frame's window, at most [`Bounds::max_zstd_window_bytes`] |
//! | `1F 8B` | gzip, every member ([`flate2::bufread::MultiGzDecoder`]) | one | 32 KiB window and the inflater's state (about 40 KiB) |
//! | `BZh1`..`BZh9` | bzip2, every stream | one | at most about 3.6 MiB (the 900 KB blocks of `BZh9`) |
//! | `PK 03 04`, `PK 05 06` | zip | each `.pgn` member, in order | the central directory, at most [`Bounds::max_zip_directory_bytes`] and [`Bounds::max_zip_members`] entries; one member's decoder |
//! | anything else | PGN text | one | none |
//!
//! xz, 7z, rar and lz4 are recognised and refused ([`InputError::Refused`]). A zip is read
//! through its central directory when it is a file; from standard input, which cannot seek,
//! member after member through their local headers, which must then carry the member's sizes
//! ([`InputError::DataDescriptor`] otherwise), and reading stops at the first member that cannot
//! be read whole. Members whose name does not end with `.pgn` (any
//! letter case) are skipped and named ([`InputState::skipped_members`]); directories are passed
//! over silently.
//!
//! Compressed text is decoded in a thread of its own (blocks of 128 KiB, at most
//! 8 ahead, 1.25 MiB) beside the reading of games, except a zip from standard input.
//!
//! Reading that fails (a read error, corrupt or cut compressed data, a zip member that cannot be
//! read) is recorded in [`InputState::errors`] with where it happened and what was read before it,
//! and handed to the PGN reader as an I/O error, so that the game it cut is an error record too.

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};

use sha2::{Digest as _, Sha256};

/// Default of [`Bounds::max_zstd_window_bytes`]: 128 MiB, the most zstd's own command line
/// decodes without `--memory` (a window log of 27).
pub const DEFAULT_MAX_ZSTD_WINDOW_BYTES: u64 = 128 << 20;

/// Default of [`Bounds::max_zip_directory_bytes`]: 16 MiB, the directory of about 100,000
/// members with names of 100 characters.
pub const DEFAULT_MAX_ZIP_DIRECTORY_BYTES: u64 = 16 << 20;

/// Default of [`Bounds::max_zip_members`].
pub const DEFAULT_MAX_ZIP_MEMBERS: u32 = 10_000;

/// Bytes of the input's start that tell its format.
pub const MAGIC_BYTES: usize = 6;

/// The input read errors kept for the summary, at most; the others are counted.
pub const MAX_ERRORS: usize = 100;

/// The skipped zip members named, at most; the others are counted.
pub const MAX_SKIPPED_NAMED: usize = 100;

/// Bytes read at a time from the input, and from a decoder.
const BUFFER_BYTES: usize = 1 << 16;

/// Bytes past a zip's central directory that opening it may read besides the directory: its
/// end records (22 bytes, a comment of at most 65,535, the zip64 records) and the search for
/// them.
const ZIP_END_SLACK: u64 = 2 * 65_557 + 76;

/// The memory bounds of reading compressed input (`arbiter adjudicate`'s flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The largest window a zstd frame may need, in bytes (`--max-zstd-window-bytes`), rounded
    /// up to a power of two; a frame that needs more is an input error.
    pub max_zstd_window_bytes: u64,
    /// The largest central directory of a zip file, in bytes (`--max-zip-directory-bytes`).
    pub max_zip_directory_bytes: u64,
    /// The most entries of a zip, members of any kind and directories (`--max-zip-members`).
    pub max_zip_members: u32,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            max_zstd_window_bytes: DEFAULT_MAX_ZSTD_WINDOW_BYTES,
            max_zip_directory_bytes: DEFAULT_MAX_ZIP_DIRECTORY_BYTES,
            max_zip_members: DEFAULT_MAX_ZIP_MEMBERS,
        }
    }
}

impl Bounds {
    /// The window log zstd is given: the base-2 logarithm of the window bound, rounded up, from
    /// 10 (1 KiB) to 31 (2 GiB).
    #[must_use]
    pub fn zstd_window_log(&self) -> u32 {
        let bytes = self.max_zstd_window_bytes.clamp(1 << 10, 1 << 31);
        bytes.next_power_of_two().trailing_zeros()
    }
}

/// The format of an input, from its first bytes ([`Format::detect`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// PGN text, or anything not recognised: binary data is refused as a whole ([`not_text`]),
    /// and the PGN reader says what is wrong with the rest.
    Plain,
    /// Zstandard (RFC 8878), one frame or many.
    Zstd,
    /// gzip (RFC 1952), one member or many.
    Gzip,
    /// bzip2, one stream or many.
    Bzip2,
    /// A zip archive (PKWARE's APPNOTE).
    Zip,
    /// A compressed format that is recognised and not read: its name.
    Refused(&'static str),
}

impl Format {
    /// The format whose signature `head` (the input's first [`MAGIC_BYTES`] bytes, or all of
    /// them when it is shorter) starts with.
    #[must_use]
    pub fn detect(head: &[u8]) -> Format {
        match head {
            [0x28, 0xB5, 0x2F, 0xFD, ..] | [0x50..=0x5F, 0x2A, 0x4D, 0x18, ..] => Format::Zstd,
            [0x1F, 0x8B, ..] => Format::Gzip,
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Format::Bzip2,
            [b'P', b'K', 3, 4, ..] | [b'P', b'K', 5, 6, ..] => Format::Zip,
            [0xFD, b'7', b'z', b'X', b'Z', 0, ..] => Format::Refused("xz"),
            [b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C, ..] => Format::Refused("7z"),
            [b'R', b'a', b'r', b'!', 0x1A, 0x07, ..] => Format::Refused("rar"),
            [0x04, 0x22, 0x4D, 0x18, ..] => Format::Refused("lz4"),
            _ => Format::Plain,
        }
    }

    /// The format's name: `zstd`, `gzip`, `bzip2`, `zip`, the refused format's, or `None` for
    /// PGN text.
    #[must_use]
    pub fn compression(self) -> Option<&'static str> {
        match self {
            Format::Plain => None,
            Format::Zstd => Some("zstd"),
            Format::Gzip => Some("gzip"),
            Format::Bzip2 => Some("bzip2"),
            Format::Zip => Some("zip"),
            Format::Refused(name) => Some(name),
        }
    }
}

/// Why an input cannot be read (whole). `Display` writes the sentence that follows "cannot read
/// FILE: ".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// A compressed format arbiter does not read.
    #[error(
        "it is {0}-compressed, which is not read: decompress it first and pass the PGN file (or pipe it to `arbiter adjudicate -`)"
    )]
    Refused(&'static str),
    /// A zip's central directory lists more entries than the bound.
    #[error("its zip central directory lists {entries} entries, more than --max-zip-members {max}")]
    TooManyMembers {
        /// The entries the directory lists.
        entries: u64,
        /// The bound.
        max: u32,
    },
    /// A zip's central directory is larger than the bound.
    #[error(
        "its zip central directory is {bytes} bytes, more than --max-zip-directory-bytes {max}"
    )]
    DirectoryTooLarge {
        /// The directory's size as its end record gives it, or the bytes read before the bound.
        bytes: u64,
        /// The bound.
        max: u64,
    },
    /// Not a zip archive that can be read (no central directory, a broken one, several disks).
    #[error("it starts as a zip archive but cannot be read as one: {0}")]
    Zip(String),
    /// A zip archive without a `.pgn` member.
    #[error("the zip archive holds no .pgn member ({0})")]
    NoPgnMember(String),
    /// A member of a zip read from standard input whose local header does not give its sizes.
    #[error(
        "zip member {member} uses a data descriptor (its sizes follow its data, so it cannot be read as a stream): pass the file, not standard input"
    )]
    DataDescriptor {
        /// The member's name.
        member: String,
    },
    /// A zip member that cannot be read (an unsupported compression method, encryption, a CRC
    /// mismatch, corrupt data).
    #[error("zip member {member}: {cause}")]
    Member {
        /// The member's name.
        member: String,
        /// What is wrong, and how much of it was read.
        cause: String,
    },
    /// Compressed data that is corrupt or cut short.
    #[error("{0}")]
    Decode(String),
    /// Text that is no text: binary data ([`not_text`]), the input's or a zip member's.
    #[error(
        "{}it is not PGN text but {what}: arbiter reads PGN as UTF-8 or Windows-1252 text, plain or compressed (zstd, gzip, bzip2, zip)",
        member.as_ref().map_or_else(String::new, |member| format!("zip member {member}: "))
    )]
    NotText {
        /// The zip member's name, `None` for the input itself.
        member: Option<String>,
        /// What it is instead (`an ELF executable`, `binary data: 412 of its first 8192 bytes
        /// are control characters`).
        what: String,
    },
    /// The input as given could not be read (a disk error, a closed pipe).
    #[error("reading failed after {bytes} bytes: {cause}")]
    Read {
        /// The bytes read before the failure.
        bytes: u64,
        /// The system's error.
        cause: String,
    },
}

impl InputError {
    /// Whether reading ends at this error, leaving out every game after it: all but an error of
    /// one zip member (not text, encrypted, corrupt), after which a zip file's next members are
    /// read, and a zip without a `.pgn` member, where no game comes after. (A zip read from standard input stops at a member's error: where the next member
    /// starts is not known for sure; [`InputState::stopped`] is then set.)
    #[must_use]
    pub fn stops_reading(&self) -> bool {
        !matches!(
            self,
            InputError::NotText {
                member: Some(_),
                ..
            } | InputError::Member { .. }
                | InputError::NoPgnMember(_)
        )
    }
}

/// What reading the input came to, shared between the reading threads and the run.
#[derive(Debug, Default)]
pub struct InputState {
    /// Bytes of the input as given (compressed or not) read so far.
    pub bytes: u64,
    /// The SHA-256 of the bytes read, when the run wants it (the HTML report).
    pub digest: Option<Sha256>,
    /// Why the input could not be read whole, in the order met (the first [`MAX_ERRORS`]).
    pub errors: Vec<InputError>,
    /// How many such errors there were.
    pub error_count: usize,
    /// Whether one of them ended the reading ([`InputError::stops_reading`]): the games after
    /// it are missing. Otherwise only the zip members the errors name are.
    pub stopped: bool,
    /// The zip members skipped, not being `.pgn` files (the first [`MAX_SKIPPED_NAMED`]).
    pub skipped_members: Vec<String>,
    /// How many were skipped.
    pub skipped_count: usize,
}

impl InputState {
    /// Records why the input could not be read whole.
    pub fn fail(&mut self, error: InputError) {
        self.error_count += 1;
        self.stopped |= error.stops_reading();
        if self.errors.len() < MAX_ERRORS && !self.errors.contains(&error) {
            self.errors.push(error);
        }
    }

    fn skip(&mut self, name: &str) {
        self.skipped_count += 1;
        if self.skipped_members.len() < MAX_SKIPPED_NAMED {
            self.skipped_members.push(name.to_owned());
        }
    }
}

/// The state shared by a run's readers.
pub type SharedState = Arc<Mutex<InputState>>;

fn lock(state: &SharedState) -> std::sync::MutexGuard<'_, InputState> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A reader that can seek, or says it cannot.
pub trait ReadSeek: Read + Seek + Send {}

impl<T: Read + Seek + Send> ReadSeek for T {}

/// Standard input (after its first bytes were looked at): read only, never sought.
struct Unseekable<R>(R);

impl<R: Read> Read for Unseekable<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R> Seek for Unseekable<R> {
    fn seek(&mut self, _: SeekFrom) -> io::Result<u64> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "standard input cannot seek",
        ))
    }
}

/// An input opened, its format known.
pub struct Opened {
    /// The bytes as given, from the first.
    pub raw: Box<dyn ReadSeek>,
    /// The format its first bytes tell.
    pub format: Format,
    /// The file's size; `None` for standard input.
    pub size: Option<u64>,
}

impl Opened {
    /// An input held in memory, its format told from its first bytes: read as a file is (a zip
    /// through its central directory) when `seekable`, else as standard input is.
    #[must_use]
    pub fn of_bytes(bytes: Vec<u8>, seekable: bool) -> Opened {
        let format = Format::detect(&bytes[..bytes.len().min(MAGIC_BYTES)]);
        let size = bytes.len() as u64;
        let cursor = io::Cursor::new(bytes);
        if seekable {
            Opened {
                raw: Box::new(cursor),
                format,
                size: Some(size),
            }
        } else {
            Opened {
                raw: Box::new(Unseekable(cursor)),
                format,
                size: None,
            }
        }
    }
}

/// Opens `path` ("-" is standard input) and tells its format from its first bytes.
///
/// # Errors
/// The file cannot be opened or read, or is a directory.
pub fn open(path: &Path) -> io::Result<Opened> {
    let mut head = Vec::with_capacity(MAGIC_BYTES);
    if path == Path::new("-") {
        let mut stdin = io::stdin();
        // A read error is the run's to report, as any later one, after the games before it.
        let failed = read_head(&mut stdin, &mut head).err();
        let format = Format::detect(&head);
        let raw = io::Cursor::new(head).chain(Failed(failed).chain(stdin));
        return Ok(Opened {
            raw: Box::new(Unseekable(raw)),
            format,
            size: None,
        });
    }
    let mut file = std::fs::File::open(path)?;
    let metadata = file.metadata()?;
    if metadata.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a PGN file",
        ));
    }
    let failed = read_head(&mut file, &mut head).err();
    let format = Format::detect(&head);
    // A pipe or a device given by name cannot seek back: its first bytes go before the rest.
    let raw: Box<dyn ReadSeek> = if metadata.is_file() && failed.is_none() {
        file.seek(SeekFrom::Start(0))?;
        Box::new(file)
    } else {
        Box::new(Unseekable(
            io::Cursor::new(head).chain(Failed(failed).chain(file)),
        ))
    };
    Ok(Opened {
        raw,
        format,
        size: metadata.is_file().then_some(metadata.len()),
    })
}

/// Reads `input` into `buf` until it is full, the input ends or a read fails (an interrupted
/// read is tried again): the bytes read, and the error that stopped it, if one did.
fn read_full(input: &mut (impl Read + ?Sized), buf: &mut [u8]) -> (usize, io::Result<()>) {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(read) => n += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return (n, Err(error)),
        }
    }
    (n, Ok(()))
}

/// Reads the input's first [`MAGIC_BYTES`] bytes (fewer when it is shorter) into `head`.
fn read_head(input: &mut impl Read, head: &mut Vec<u8>) -> io::Result<()> {
    let mut buf = [0; MAGIC_BYTES];
    let (n, result) = read_full(input, &mut buf);
    head.extend_from_slice(&buf[..n]);
    result
}

/// A reader that fails with the error met while its input's first bytes were read, once, and
/// then reads nothing (the input after it is not read: an error ends the PGN reader).
struct Failed(Option<io::Error>);

impl Read for Failed {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(error) => Err(error),
            None => Ok(0),
        }
    }
}

/// Reads into `buf` until it is full or the input ends; the bytes read.
fn read_up_to(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(read) => n += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(n)
}

/// The SHA-256 of the file at `path`, read to its end (a zip file's hash: its members are read
/// through its directory, not in the file's order).
///
/// # Errors
/// The file cannot be read.
pub fn file_sha256(path: &Path) -> io::Result<[u8; 32]> {
    let mut file = std::fs::File::open(path)?;
    let mut digest = Sha256::new();
    io::copy(&mut file, &mut digest)?;
    Ok(digest.finalize().into())
}

/// A read error of the input as given, passed up through the decoders unchanged: it is
/// recorded once, where it happened.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct RawReadError(String);

/// The input as given, counted and hashed as it is read ([`InputState::bytes`],
/// [`InputState::digest`]); its read errors are recorded.
pub struct Observed<R> {
    inner: R,
    state: SharedState,
}

impl<R> Observed<R> {
    /// `inner`, observed into `state`.
    pub fn new(inner: R, state: SharedState) -> Self {
        Self { inner, state }
    }
}

impl<R: Read> Read for Observed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf);
        let mut state = lock(&self.state);
        match read {
            Ok(n) => {
                state.bytes += n as u64;
                if let Some(digest) = &mut state.digest {
                    digest.update(&buf[..n]);
                }
                Ok(n)
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => Err(error),
            Err(error) => {
                let bytes = state.bytes;
                state.fail(InputError::Read {
                    bytes,
                    cause: error.to_string(),
                });
                Err(io::Error::new(
                    error.kind(),
                    RawReadError(format!("reading failed after {bytes} bytes: {error}")),
                ))
            }
        }
    }
}

impl<R: Seek> Seek for Observed<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// The compressed input's bytes, buffered.
type Buffered = BufReader<Box<dyn ReadSeek>>;

/// Where a decoder's errors are said to be.
enum Place {
    /// A compressed stream: the offset its decoder consumed up to is the input's bytes read
    /// less what its buffer still holds.
    Stream {
        /// `zstd`, `gzip`, `bzip2`.
        codec: &'static str,
        /// The bytes the decoder's input buffer holds, not yet consumed.
        buffered: Arc<AtomicU64>,
    },
    /// A zip member.
    Member {
        /// Its name.
        name: String,
        /// Where its compressed data lies in the file, when known.
        span: Option<(u64, u64)>,
    },
}

/// A decoder's output, its errors turned into [`InputError`]s that say where the data broke and
/// how much of it was read before (recorded, and handed on as I/O errors).
struct Decoded<D> {
    inner: D,
    place: Place,
    /// Bytes decoded so far.
    decoded: u64,
    state: SharedState,
    window_bytes: u64,
}

impl<D: Read> Read for Decoded<D> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.decoded += n as u64;
                Ok(n)
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => Err(error),
            Err(error) => {
                let raw = error
                    .get_ref()
                    .is_some_and(|inner| inner.is::<RawReadError>());
                if raw {
                    return Err(error);
                }
                let error = self.describe(&error);
                let message = error.to_string();
                lock(&self.state).fail(error);
                Err(io::Error::new(io::ErrorKind::InvalidData, message))
            }
        }
    }
}

impl<D> Decoded<D> {
    fn describe(&self, error: &io::Error) -> InputError {
        let decoded = self.decoded;
        let cut = error.kind() == io::ErrorKind::UnexpectedEof;
        let cause = error.to_string();
        // Not corruption: a bound of ours, which the message names with its flag.
        let window = cause.contains("Frame requires too much memory");
        let cause = if window {
            format!(
                "{cause}: the frame needs a window larger than --max-zstd-window-bytes {} (raise it to read this file)",
                self.window_bytes
            )
        } else {
            cause
        };
        // A checksum is checked at the end of the data it covers: the text read before came
        // from that data.
        let checksum = if error.to_string().to_lowercase().contains("checksum") {
            "; the games read before the error came from the data that failed its checksum: check them against another copy of the file"
        } else {
            ""
        };
        match &self.place {
            Place::Stream { codec, buffered } => {
                let state = lock(&self.state);
                let at = state.bytes.saturating_sub(buffered.load(Ordering::Relaxed));
                if cut {
                    InputError::Decode(format!(
                        "the {codec} data is cut short: the input ends at byte {at} in the middle of it ({cause}), after {decoded} bytes of PGN"
                    ))
                } else if window {
                    InputError::Decode(format!(
                        "the {codec} data at byte {at} of the input cannot be read within the bounds ({cause}), after {decoded} bytes of PGN"
                    ))
                } else {
                    InputError::Decode(format!(
                        "corrupt {codec} data at byte {at} of the input ({cause}), after {decoded} bytes of PGN{checksum}"
                    ))
                }
            }
            Place::Member { name, span } => {
                let span = span.map_or_else(String::new, |(start, end)| {
                    format!(", its data at bytes {start}-{end} of the file")
                });
                let what = if cut { "cut short" } else { "corrupt" };
                InputError::Member {
                    member: name.clone(),
                    cause: format!(
                        "{what} ({cause}{span}), after {decoded} bytes of its PGN{checksum}"
                    ),
                }
            }
        }
    }
}

/// A buffered reader that tells, through a shared counter, how many bytes its buffer holds
/// (the compressed bytes read but not yet consumed by the decoder above it).
struct Measured {
    inner: Buffered,
    buffered: Arc<AtomicU64>,
}

impl Read for Measured {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.buffered
            .store(self.inner.buffer().len() as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl BufRead for Measured {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let buf = self.inner.fill_buf()?;
        self.buffered.store(buf.len() as u64, Ordering::Relaxed);
        Ok(buf)
    }

    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount);
        self.buffered
            .store(self.inner.buffer().len() as u64, Ordering::Relaxed);
    }
}

/// Bytes of a part's start that [`not_text`] looks at (as Git and GNU grep look at the first
/// 8,000 or so for a NUL byte).
pub const SNIFF_BYTES: usize = 8192;

/// Control characters a part's start must hold at least to be called binary data: a short
/// text with one stray control character (a DOS end-of-file Ctrl-Z after `1. e4 *`) is text.
pub const MIN_CONTROLS: usize = 8;

/// Signatures of binary files a round may be mistaken for, with their names.
const BINARY_SIGNATURES: [(&[u8], &str); 8] = [
    (b"\x7fELF", "an ELF executable"),
    (b"MZ", "a Windows executable"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"SQLite format 3\0", "an SQLite database"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "an OLE2 file (a legacy Office document)",
    ),
];

/// What the start `head` of a part (its first [`SNIFF_BYTES`] or all of it) is when it is not
/// text, `None` when it may be: a known binary signature, or control characters (bytes 0-8,
/// 14-26, 28-31) making up a twentieth of it (random bytes have twice as many), and at least
/// [`MIN_CONTROLS`] of them. Text that is UTF-16 or UTF-32 (a byte-order mark, or
/// NUL bytes on three of every four bytes or every other one, with almost none on one byte of
/// each character) is left to the PGN reader, which names the encoding and how to convert it; a few
/// stray NULs or control characters in text leave it text (the games they are in are refused).
#[must_use]
pub fn not_text(head: &[u8]) -> Option<String> {
    if let Some((_, name)) = BINARY_SIGNATURES
        .iter()
        .find(|(signature, _)| head.starts_with(signature))
    {
        // `MZ` alone is a word a PGN file may start with: only with a PE's NUL-padded header.
        if !name.contains("Windows") || head.get(2..64).is_some_and(|h| h.contains(&0)) {
            return Some((*name).to_owned());
        }
    }
    let control = |b: u8| matches!(b, 0..=8 | 14..=26 | 28..=31);
    let controls = head.iter().filter(|&&b| control(b)).count();
    if controls < MIN_CONTROLS || controls * 20 < head.len() {
        return None;
    }
    let bom = [&[0xff, 0xfe][..], &[0xfe, 0xff], &[0, 0, 0xfe, 0xff]];
    if bom.iter().any(|bom| head.starts_with(bom)) {
        return None;
    }
    // UTF-16 or UTF-32 of mostly ASCII text: one byte position of each character (almost) never
    // NUL, the others mostly NUL.
    let wide = [2, 4].iter().any(|&width| {
        (0..width).any(|at| {
            let column = || head.iter().skip(at).step_by(width);
            let nul = |b: &&u8| **b == 0;
            let (nuls, len) = (column().filter(nul).count(), column().count());
            nuls * 100 <= len
                && (0..width).filter(|&other| other != at).all(|other| {
                    head.iter().skip(other).step_by(width).filter(nul).count() * 2 >= len
                })
        })
    });
    if wide {
        return None;
    }
    Some(format!(
        "binary data: {controls} of its first {} bytes are control characters",
        head.len()
    ))
}

/// `reader`'s part with its first [`SNIFF_BYTES`] read ahead, when it may be read as text
/// ([`not_text`]); `None` when it is not text, which is recorded in `state` as an input error
/// (the part is not read). A read error while reading ahead ends the look, and is handed on to
/// the reading of the part after the bytes before it, as it came.
fn text_part<'r>(
    reader: &'r mut (dyn BufRead + Send),
    member: Option<&str>,
    state: &SharedState,
) -> Option<Sniffed<'r>> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    let mut error = None;
    while head.len() < SNIFF_BYTES {
        match reader.fill_buf() {
            Ok([]) => break,
            Ok(available) => {
                let n = available.len().min(SNIFF_BYTES - head.len());
                head.extend_from_slice(&available[..n]);
                reader.consume(n);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    if let Some(what) = not_text(&head) {
        lock(state).fail(InputError::NotText {
            member: member.map(str::to_owned),
            what,
        });
        return None;
    }
    Some(Sniffed {
        head: io::Cursor::new(head),
        error,
        rest: reader,
    })
}

/// A part's first bytes, read ahead to tell whether it is text ([`text_part`]), then the read
/// error met while reading them ahead, if any, then the rest of the part.
struct Sniffed<'r> {
    head: io::Cursor<Vec<u8>>,
    error: Option<io::Error>,
    rest: &'r mut (dyn BufRead + Send),
}

impl Sniffed<'_> {
    fn head_left(&self) -> bool {
        self.head.position() < self.head.get_ref().len() as u64
    }
}

impl Read for Sniffed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Sniffed<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.head_left() {
            return self.head.fill_buf();
        }
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        self.rest.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        if self.head_left() {
            self.head.consume(amount);
        } else {
            self.rest.consume(amount);
        }
    }
}

/// One part of the input: PGN text, and the zip member it is when it is one.
pub struct Part<'a> {
    /// The zip member's name and its number among the `.pgn` members read (from 0); `None` for
    /// an input that is not a zip.
    pub member: Option<(&'a str, usize)>,
    /// The PGN text.
    pub reader: &'a mut (dyn BufRead + Send),
}

/// Hands every part of `opened` to `each`, in order, and records in `state` what could not be
/// read. `opened.raw` must already be observed into `state` ([`Observed`]).
///
/// # Errors
/// The first error `each` returns (writing the output), which ends the run; an input that
/// cannot be read is no error here ([`InputState::errors`]).
pub fn for_each_part(
    opened: Opened,
    bounds: &Bounds,
    state: &SharedState,
    each: &mut dyn FnMut(Part<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let Opened { raw, format, size } = opened;
    let buffered = Arc::new(AtomicU64::new(0));
    let measured = Measured {
        inner: BufReader::with_capacity(BUFFER_BYTES, raw),
        buffered: Arc::clone(&buffered),
    };
    let place = |codec| Place::Stream {
        codec,
        buffered: Arc::clone(&buffered),
    };
    let window_bytes = 1 << bounds.zstd_window_log();
    let decoded = |inner: Box<dyn Read + Send>, codec| -> Box<dyn BufRead + Send> {
        prefetched(
            Decoded {
                inner,
                place: place(codec),
                decoded: 0,
                state: Arc::clone(state),
                window_bytes,
            },
            state,
        )
    };
    let mut reader: Box<dyn BufRead + Send> = match format {
        Format::Plain => Box::new(measured),
        Format::Zstd => {
            let decoder = zstd::stream::read::Decoder::with_buffer(measured).and_then(|mut d| {
                d.window_log_max(bounds.zstd_window_log())?;
                Ok(d)
            });
            match decoder {
                Ok(decoder) => decoded(Box::new(decoder), "zstd"),
                Err(error) => {
                    lock(state).fail(InputError::Decode(format!(
                        "cannot start the zstd decoder: {error}"
                    )));
                    return Ok(());
                }
            }
        }
        Format::Gzip => decoded(
            Box::new(flate2::bufread::MultiGzDecoder::new(measured)),
            "gzip",
        ),
        Format::Bzip2 => decoded(
            Box::new(bzip2::bufread::MultiBzDecoder::new(measured)),
            "bzip2",
        ),
        Format::Zip if size.is_some() => {
            return zip_file(measured.inner.into_inner(), bounds, state, each);
        }
        Format::Zip => return zip_stream(measured.inner.into_inner(), bounds, state, each),
        Format::Refused(name) => {
            lock(state).fail(InputError::Refused(name));
            return Ok(());
        }
    };
    match text_part(&mut *reader, None, state) {
        Some(mut reader) => each(Part {
            member: None,
            reader: &mut reader,
        }),
        None => Ok(()),
    }
}

/// Bytes a decompressing thread hands over at a time ([`Prefetched`]).
const PREFETCH_BLOCK_BYTES: usize = 128 << 10;

/// Blocks a decompressing thread may have decoded ahead of the reading of games: with the one
/// being filled and the one being read, at most 1.25 MiB.
const PREFETCH_BLOCKS: usize = 8;

/// Decompressed text read ahead by a thread of its own ([`produce`]), so that decompressing
/// and adjudicating run side by side even at `-j 1`: blocks of [`PREFETCH_BLOCK_BYTES`], at most
/// [`PREFETCH_BLOCKS`] ahead. A read error comes after the blocks read before it, and ends the
/// text.
struct Prefetched {
    blocks: mpsc::Receiver<io::Result<Vec<u8>>>,
    /// Blocks read, handed back to be filled again.
    spare: mpsc::Sender<Vec<u8>>,
    block: Vec<u8>,
    at: usize,
    done: bool,
}

/// The sending ends of a [`Prefetched`] reader's channels.
type Blocks = mpsc::SyncSender<io::Result<Vec<u8>>>;

impl Prefetched {
    /// A reader, and the ends its producer sends blocks to and takes spare blocks from.
    fn channels() -> (Prefetched, Blocks, mpsc::Receiver<Vec<u8>>) {
        let (blocks_tx, blocks) = mpsc::sync_channel(PREFETCH_BLOCKS);
        let (spare, spare_rx) = mpsc::channel();
        (
            Prefetched {
                blocks,
                spare,
                block: Vec::new(),
                at: 0,
                done: false,
            },
            blocks_tx,
            spare_rx,
        )
    }
}

impl Read for Prefetched {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Prefetched {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at == self.block.len() && !self.done {
            match self.blocks.recv() {
                Ok(Ok(block)) => {
                    let read = std::mem::replace(&mut self.block, block);
                    let _ = self.spare.send(read);
                    self.at = 0;
                }
                Ok(Err(error)) => {
                    self.done = true;
                    return Err(error);
                }
                // The producer ended: the end of the text.
                Err(_) => self.done = true,
            }
        }
        Ok(&self.block[self.at..])
    }

    fn consume(&mut self, amount: usize) {
        self.at = (self.at + amount).min(self.block.len());
    }
}

/// Reads `inner` to its end (or its first error) in blocks sent to `blocks`, reusing the blocks
/// `spare` gives back; stops when the reader has gone.
fn produce(inner: &mut dyn Read, blocks: &Blocks, spare: &mpsc::Receiver<Vec<u8>>) {
    loop {
        let mut block = spare.try_recv().unwrap_or_default();
        block.resize(PREFETCH_BLOCK_BYTES, 0);
        let (n, result) = read_full(inner, &mut block);
        block.truncate(n);
        let ended = n < PREFETCH_BLOCK_BYTES;
        if n > 0 && blocks.send(Ok(block)).is_err() {
            return;
        }
        if let Err(error) = result {
            let _ = blocks.send(Err(error));
            return;
        }
        if ended {
            return;
        }
    }
}

/// `inner` read ahead by a thread of its own ([`Prefetched`]), left to run out by itself when
/// the reader goes early: it may be waiting for standard input. When no thread can be started
/// (the system's limit), that is an input error of `state` and the text is empty.
fn prefetched<R: Read + Send + 'static>(
    mut inner: R,
    state: &SharedState,
) -> Box<dyn BufRead + Send> {
    let (reader, blocks, spare) = Prefetched::channels();
    let started = std::thread::Builder::new()
        .name("adjudicate-decompress".to_owned())
        .spawn(move || produce(&mut inner, &blocks, &spare));
    if let Err(error) = started {
        lock(state).fail(InputError::Decode(format!(
            "cannot start the thread that decompresses the input: {error}"
        )));
        return Box::new(io::empty());
    }
    Box::new(reader)
}

/// Whether a zip member is read: a file whose name ends with `.pgn`, in any letter case.
fn is_pgn(name: &str) -> bool {
    name.len() >= 4
        && name.is_char_boundary(name.len() - 4)
        && name[name.len() - 4..].eq_ignore_ascii_case(".pgn")
}

/// A reader whose reads fail once `left` bytes were read (opening a zip: its directory's
/// bound), or never when `left` is `u64::MAX`.
struct Budget<R> {
    inner: R,
    left: Arc<AtomicU64>,
}

impl<R: Read> Read for Budget<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.left.load(Ordering::Relaxed);
        if left == 0 {
            return Err(io::Error::other(BudgetSpent));
        }
        let room = usize::try_from(left).unwrap_or(usize::MAX).min(buf.len());
        let n = self.inner.read(&mut buf[..room])?;
        if left != u64::MAX {
            self.left.store(left - n as u64, Ordering::Relaxed);
        }
        Ok(n)
    }
}

impl<R: Seek> Seek for Budget<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// The read budget of opening a zip ran out.
#[derive(Debug, thiserror::Error)]
#[error("the zip's directory is larger than its bound")]
struct BudgetSpent;

/// The entries and size of a zip's central directory, as its end record (and, for zip64, the
/// zip64 end record its locator points to) give them (APPNOTE 4.3.14-4.3.16); `None` when no end
/// record is found in the file's last 65,557 bytes (22 bytes and the longest comment), which the
/// caller refuses as a file cut short or not a zip rather than let the zip reader search it all.
/// Read before the zip reader opens the file, so that a directory beyond the bounds is refused
/// before anything is allocated for it.
fn directory_extent(file: &mut (impl Read + Seek)) -> io::Result<Option<(u64, u64)>> {
    const END: &[u8; 4] = b"PK\x05\x06";
    const LOCATOR: &[u8; 4] = b"PK\x06\x07";
    const END64: &[u8; 4] = b"PK\x06\x06";
    let u16_at = |b: &[u8], i: usize| u64::from(u16::from_le_bytes([b[i], b[i + 1]]));
    let u32_at =
        |b: &[u8], i: usize| u64::from(u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]));
    let u64_at = |b: &[u8], i: usize| {
        u64::from_le_bytes([
            b[i],
            b[i + 1],
            b[i + 2],
            b[i + 3],
            b[i + 4],
            b[i + 5],
            b[i + 6],
            b[i + 7],
        ])
    };
    let len = file.seek(SeekFrom::End(0))?;
    let tail_len = len.min(22 + 65_535);
    let tail_start = len - tail_len;
    file.seek(SeekFrom::Start(tail_start))?;
    let mut tail = vec![0; usize::try_from(tail_len).unwrap_or(0)];
    file.read_exact(&mut tail)?;
    // The last end record whose comment fits in the file.
    let Some(at) = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| &tail[i..i + 4] == END && i + 22 + u16_at(&tail, i + 20) as usize <= tail.len())
    else {
        return Ok(None);
    };
    let end = &tail[at..at + 22];
    let entries = u16_at(end, 8).max(u16_at(end, 10));
    let size = u32_at(end, 12);
    let offset = u32_at(end, 16);
    if entries != 0xFFFF && size != 0xFFFF_FFFF && offset != 0xFFFF_FFFF {
        return Ok(Some((entries, size)));
    }
    // Maybe zip64: its locator is the 20 bytes before the end record.
    let end_at = tail_start + at as u64;
    if end_at < 20 {
        return Ok(Some((entries, size)));
    }
    let mut locator = [0; 20];
    file.seek(SeekFrom::Start(end_at - 20))?;
    file.read_exact(&mut locator)?;
    if &locator[..4] != LOCATOR {
        return Ok(Some((entries, size)));
    }
    let mut end64 = [0; 56];
    file.seek(SeekFrom::Start(u64_at(&locator, 8)))?;
    if read_up_to(file, &mut end64)? < 56 || &end64[..4] != END64 {
        // A locator that points at no zip64 end record: the sizes cannot be checked, and the
        // zip reader would search the file for the record.
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "its zip64 end record is not where its locator says",
        ));
    }
    Ok(Some((
        u64_at(&end64, 24).max(u64_at(&end64, 32)),
        u64_at(&end64, 40),
    )))
}

/// The `.pgn` members of a zip file, read through its central directory.
fn zip_file(
    mut raw: Box<dyn ReadSeek>,
    bounds: &Bounds,
    state: &SharedState,
    each: &mut dyn FnMut(Part<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let refuse = |error| {
        lock(state).fail(error);
        Ok(())
    };
    match directory_extent(&mut raw) {
        Ok(Some((entries, _))) if entries > u64::from(bounds.max_zip_members) => {
            return refuse(InputError::TooManyMembers {
                entries,
                max: bounds.max_zip_members,
            });
        }
        Ok(Some((_, bytes))) if bytes > bounds.max_zip_directory_bytes => {
            return refuse(InputError::DirectoryTooLarge {
                bytes,
                max: bounds.max_zip_directory_bytes,
            });
        }
        Ok(Some(_)) => {}
        // The zip reader would search the whole file backwards for it.
        Ok(None) => {
            return refuse(InputError::Zip(
                "it has no end record (the end of its central directory) in its last 65,557 bytes: the file is cut short, or not a zip file".to_owned(),
            ));
        }
        Err(error) => return refuse(InputError::Zip(error.to_string())),
    }
    if let Err(error) = raw.seek(SeekFrom::Start(0)) {
        return refuse(InputError::Zip(error.to_string()));
    }
    // Opening reads the end records and the directory: at most the bound and the end records.
    let left = Arc::new(AtomicU64::new(
        bounds.max_zip_directory_bytes.saturating_add(ZIP_END_SLACK),
    ));
    let budget = Budget {
        inner: raw,
        left: Arc::clone(&left),
    };
    let mut archive = match zip::ZipArchive::new(BufReader::with_capacity(BUFFER_BYTES, budget)) {
        Ok(archive) => archive,
        Err(zip::result::ZipError::Io(error))
            if error.get_ref().is_some_and(|e| e.is::<BudgetSpent>()) =>
        {
            return refuse(InputError::DirectoryTooLarge {
                bytes: bounds.max_zip_directory_bytes.saturating_add(ZIP_END_SLACK),
                max: bounds.max_zip_directory_bytes,
            });
        }
        Err(error) => return refuse(InputError::Zip(error.to_string())),
    };
    left.store(u64::MAX, Ordering::Relaxed);
    if archive.len() > bounds.max_zip_members as usize {
        return refuse(InputError::TooManyMembers {
            entries: archive.len() as u64,
            max: bounds.max_zip_members,
        });
    }
    let mut number = 0;
    for index in 0..archive.len() {
        let name = archive.name_for_index(index).unwrap_or("").to_owned();
        if name.ends_with('/') {
            continue;
        }
        if !is_pgn(&name) {
            lock(state).skip(&name);
            continue;
        }
        // A .pgn member that cannot be opened still counts: the archive has one.
        number += 1;
        let member = match archive.by_index(index) {
            Ok(member) => member,
            Err(error) => {
                lock(state).fail(InputError::Member {
                    member: name,
                    cause: zip_cause(&error),
                });
                continue;
            }
        };
        let span = member
            .data_start()
            .map(|start| (start, start + member.compressed_size()));
        let mut decoded = Decoded {
            inner: member,
            place: Place::Member {
                name: name.clone(),
                span,
            },
            decoded: 0,
            state: Arc::clone(state),
            window_bytes: 1 << bounds.zstd_window_log(),
        };
        // The member is inflated in a thread of its own, beside the reading of its games; it
        // reads a file, so the scope's end never waits on an input that does not come.
        std::thread::scope(|scope| {
            let (mut reader, blocks, spare) = Prefetched::channels();
            let producer = std::thread::Builder::new()
                .name("adjudicate-inflate".to_owned())
                .spawn_scoped(scope, move || produce(&mut decoded, &blocks, &spare));
            match producer {
                Ok(_) => match text_part(&mut reader, Some(&name), state) {
                    Some(mut reader) => each(Part {
                        member: Some((&name, number - 1)),
                        reader: &mut reader,
                    }),
                    None => Ok(()),
                },
                Err(error) => {
                    lock(state).fail(InputError::Member {
                        member: name.clone(),
                        cause: format!("cannot start the thread that decompresses it: {error}"),
                    });
                    Ok(())
                }
            }
        })?;
    }
    if number == 0 {
        let none = no_pgn_member(&lock(state));
        lock(state).fail(none);
    }
    Ok(())
}

/// [`InputError::NoPgnMember`], naming the members there were.
/// What a zip error says, in the words of the remedy where there is one: an encrypted member
/// needs its password, which arbiter never asks for.
fn zip_cause(error: &zip::result::ZipError) -> String {
    match error {
        // The second is what a member read as a stream says.
        zip::result::ZipError::UnsupportedArchive(why)
            if *why == zip::result::ZipError::PASSWORD_REQUIRED
                || why.starts_with("Encrypted files") =>
        {
            "it is encrypted (password-protected): decrypt it first (e.g. `unzip FILE`, which asks for the password) and pass the PGN".to_owned()
        }
        _ => error.to_string(),
    }
}

fn no_pgn_member(state: &InputState) -> InputError {
    InputError::NoPgnMember(if state.skipped_count == 0 {
        "it has no member".to_owned()
    } else {
        let more = state.skipped_count - state.skipped_members.len();
        format!(
            "its members: {}{}",
            state.skipped_members.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )
    })
}

/// A reader that can look ahead at its next bytes (a zip member's local header) without
/// consuming them.
struct Lookahead<R> {
    inner: R,
    ahead: Vec<u8>,
    at: usize,
}

impl<R: Read> Lookahead<R> {
    /// The next `n` bytes, or fewer at the end of the input.
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.ahead.len() - self.at < n {
            self.ahead.drain(..self.at);
            self.at = 0;
            let have = self.ahead.len();
            self.ahead.resize(n, 0);
            let read = read_up_to(&mut self.inner, &mut self.ahead[have..])?;
            self.ahead.truncate(have + read);
        }
        let end = self.ahead.len().min(self.at + n);
        Ok(&self.ahead[self.at..end])
    }
}

impl<R: Read> Read for Lookahead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at < self.ahead.len() {
            let n = buf.len().min(self.ahead.len() - self.at);
            buf[..n].copy_from_slice(&self.ahead[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

/// The `.pgn` members of a zip read from standard input, member after member through their
/// local headers.
fn zip_stream(
    raw: Box<dyn ReadSeek>,
    bounds: &Bounds,
    state: &SharedState,
    each: &mut dyn FnMut(Part<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let mut input = Lookahead {
        inner: BufReader::with_capacity(BUFFER_BYTES, raw),
        ahead: Vec::new(),
        at: 0,
    };
    let mut entries: u64 = 0;
    let mut number = 0;
    // The local header (APPNOTE 4.3.7): its flags (bit 3: a data descriptor follows the data,
    // the sizes here are 0) and its name, looked at before the zip reader reads it. A read error
    // is recorded by the input's observer.
    while let Ok(header) = input.peek(30) {
        if header.starts_with(b"PK\x05\x06") {
            // The end record of an archive without members.
            break;
        }
        if header.len() == 30 && &header[..4] == b"PK\x03\x04" {
            entries += 1;
            if entries > u64::from(bounds.max_zip_members) {
                lock(state).fail(InputError::TooManyMembers {
                    entries,
                    max: bounds.max_zip_members,
                });
                return Ok(());
            }
            let flags = u16::from_le_bytes([header[6], header[7]]);
            let name_len = usize::from(u16::from_le_bytes([header[26], header[27]]));
            if flags & 0x08 != 0 {
                let member = match input.peek(30 + name_len) {
                    Ok(header) => {
                        String::from_utf8_lossy(header.get(30..).unwrap_or(&[])).into_owned()
                    }
                    Err(_) => format!("{entries}"),
                };
                lock(state).fail(InputError::DataDescriptor { member });
                return Ok(());
            }
        }
        let member = match zip::read::read_zipfile_from_stream(&mut input) {
            Ok(Some(member)) => member,
            Ok(None) => break,
            Err(error) => {
                let mut state = lock(state);
                let bytes = state.bytes;
                state.fail(InputError::Zip(format!(
                    "{} (after {bytes} bytes of standard input)",
                    zip_cause(&error)
                )));
                return Ok(());
            }
        };
        let name = member.name().to_owned();
        if member.is_dir() {
            continue;
        }
        if !is_pgn(&name) {
            lock(state).skip(&name);
            continue;
        }
        let errors_before = lock(state).error_count;
        let mut reader = BufReader::with_capacity(
            BUFFER_BYTES,
            Decoded {
                inner: member,
                place: Place::Member {
                    name: name.clone(),
                    span: None,
                },
                decoded: 0,
                state: Arc::clone(state),
                window_bytes: 1 << bounds.zstd_window_log(),
            },
        );
        if let Some(mut reader) = text_part(&mut reader, Some(&name), state) {
            each(Part {
                member: Some((&name, number)),
                reader: &mut reader,
            })?;
        }
        number += 1;
        if lock(state).error_count > errors_before {
            // A member that could not be read whole (cut short, corrupt): where the next one
            // starts is not known for sure in a stream, so reading stops here.
            lock(state).stopped = true;
            return Ok(());
        }
    }
    if number == 0 && lock(state).error_count == 0 {
        let none = no_pgn_member(&lock(state));
        lock(state).fail(none);
    }
    // The rest (the central directory) is read too, so that the SHA-256 is the whole input's.
    let _ = io::copy(&mut input, &mut io::sink());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 28 item 4: the format is told by the first bytes, whatever the name.
    #[test]
    fn formats_are_told_by_their_first_bytes() {
        let cases: [(&[u8], Format); 12] = [
            (b"\x28\xB5\x2F\xFD\x04\x58", Format::Zstd),
            (b"\x50\x2A\x4D\x18\x04\x00", Format::Zstd),
            (b"\x1F\x8B\x08\x00\x00\x00", Format::Gzip),
            (b"BZh91AY", Format::Bzip2),
            (b"PK\x03\x04\x14\x00", Format::Zip),
            (b"PK\x05\x06\x00\x00", Format::Zip),
            (b"\xFD7zXZ\x00", Format::Refused("xz")),
            (b"7z\xBC\xAF\x27\x1C", Format::Refused("7z")),
            (b"[Event \"x\"]", Format::Plain),
            (b"BZh0", Format::Plain),
            (b"\x1F", Format::Plain),
            (b"", Format::Plain),
        ];
        for (head, format) in cases {
            assert_eq!(Format::detect(head), format, "{head:?}");
        }
    }

    /// Issue 28 (a fresh user's finding): a binary file was read as "UTF-32" and 205 error
    /// records; binary data is now refused as a whole, naming what it is, while text with a
    /// stray control character, Windows-1252 and UTF-16/32 (which the PGN reader names) are
    /// left to be read.
    #[test]
    fn binary_data_is_told_from_text_by_its_signature_or_its_control_characters() {
        let elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0";
        assert_eq!(not_text(elf).as_deref(), Some("an ELF executable"));
        assert_eq!(
            not_text(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").as_deref(),
            Some("a PNG image")
        );
        assert_eq!(not_text(b"%PDF-1.7\n").as_deref(), Some("a PDF document"));
        let mut pe = b"MZ\x90\0\x03\0\0\0".to_vec();
        pe.resize(64, 0);
        assert_eq!(not_text(&pe).as_deref(), Some("a Windows executable"));
        // "MZ" as the start of a word is text.
        assert_eq!(not_text(b"MZ is a player's initials\n1. e4 *\n"), None);
        let noise: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
        let controls = noise
            .iter()
            .filter(|&&b| matches!(b, 0..=8 | 14..=26 | 28..=31))
            .count();
        assert!(controls * 20 >= noise.len());
        assert_eq!(
            not_text(&noise),
            Some(format!(
                "binary data: {controls} of its first 4096 bytes are control characters"
            ))
        );
        let pgn = "[Event \"Café\"]\r\n[White \"Ñ\"]\r\n\r\n1. e4 e5\t2. Nf3 *\r\n";
        assert_eq!(not_text(pgn.as_bytes()), None);
        let windows_1252: Vec<u8> = pgn.chars().map(|c| c as u32 as u8).collect();
        assert_eq!(not_text(&windows_1252), None);
        // A stray NUL and an escape in a long text leave it text.
        let stray = format!("{}\0\x1b{}", pgn.repeat(4), pgn.repeat(4));
        assert_eq!(not_text(stray.as_bytes()), None);
        let utf16le: Vec<u8> = pgn.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let utf16be: Vec<u8> = pgn.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let utf32le: Vec<u8> = pgn.chars().flat_map(|c| (c as u32).to_le_bytes()).collect();
        let utf32be: Vec<u8> = pgn.chars().flat_map(|c| (c as u32).to_be_bytes()).collect();
        for wide in [utf16le, utf16be, utf32le, utf32be] {
            assert_eq!(not_text(&wide), None, "{:?}", &wide[..8]);
        }
        assert_eq!(not_text(b""), None);
        // A short text ending in a DOS end-of-file mark, and seven control characters, are
        // text; eight among few bytes are not.
        assert_eq!(not_text(b"1. e4 *\n\x1a"), None);
        assert_eq!(not_text(b"\x01\x02\x03\x04\x05\x06\x07"), None);
        assert_eq!(
            not_text(b"\x01\x02\x03\x04\x05\x06\x07\x08").as_deref(),
            Some("binary data: 8 of its first 8 bytes are control characters")
        );
    }

    /// The zstd window bound is a power of two, rounded up, within zstd's window logs.
    #[test]
    fn zstd_window_bound_rounds_up_to_a_power_of_two() {
        let log = |bytes| {
            Bounds {
                max_zstd_window_bytes: bytes,
                ..Bounds::default()
            }
            .zstd_window_log()
        };
        assert_eq!(log(DEFAULT_MAX_ZSTD_WINDOW_BYTES), 27);
        assert_eq!(log(1 << 20), 20);
        assert_eq!(log((1 << 20) + 1), 21);
        assert_eq!(log(1), 10);
        assert_eq!(log(u64::MAX), 31);
    }

    #[test]
    fn pgn_members_are_named_dot_pgn_in_any_case() {
        assert!(is_pgn("round1.pgn") && is_pgn("2025/R2.PGN") && is_pgn(".pgn"));
        assert!(!is_pgn("README") && !is_pgn("games.pgn.gz") && !is_pgn("pgn") && !is_pgn("é.pg"));
    }

    /// Issue 28 item 4: a zip's entries and directory size are read from its end record before
    /// the zip reader allocates anything for them; a file cut before it has none.
    #[test]
    fn zip_directory_extent_is_read_from_the_end_record() {
        use std::io::Write as _;
        let mut zip = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        for name in ["a.pgn", "README", "b.pgn"] {
            zip.start_file(name, zip::write::SimpleFileOptions::default())
                .expect("zip");
            zip.write_all(b"1. e4 *\n").expect("zip");
        }
        zip.set_comment("a comment the end record carries")
            .expect("a short comment");
        let bytes = zip.finish().expect("zip").into_inner();
        // 46 bytes and the name for each entry of the directory.
        assert_eq!(
            directory_extent(&mut io::Cursor::new(&bytes)).expect("reads"),
            Some((3, 3 * 46 + 5 + 6 + 5))
        );
        let cut = &bytes[..bytes.len() - 40];
        assert_eq!(
            directory_extent(&mut io::Cursor::new(cut)).expect("reads"),
            None
        );
        let state = SharedState::default();
        let mut parts = 0;
        for_each_part(
            Opened::of_bytes(cut.to_vec(), true),
            &Bounds::default(),
            &state,
            &mut |_| {
                parts += 1;
                Ok(())
            },
        )
        .expect("no output error");
        assert_eq!(parts, 0);
        assert_eq!(
            lock(&state).errors,
            [InputError::Zip(
                "it has no end record (the end of its central directory) in its last 65,557 bytes: the file is cut short, or not a zip file".to_owned()
            )]
        );
    }

    #[test]
    fn lookahead_peeks_without_consuming() {
        let mut input = Lookahead {
            inner: &b"0123456789"[..],
            ahead: Vec::new(),
            at: 0,
        };
        assert_eq!(input.peek(4).unwrap(), b"0123");
        let mut two = [0; 2];
        input.read_exact(&mut two).unwrap();
        assert_eq!(&two, b"01");
        assert_eq!(input.peek(6).unwrap(), b"234567");
        assert_eq!(input.peek(20).unwrap(), b"23456789");
        let mut rest = Vec::new();
        input.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"23456789");
    }
}
