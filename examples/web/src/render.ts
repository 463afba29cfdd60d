// What the page shows: the moves of a ListLegalMoves answer, the verdict of an AdjudicateGame
// answer, or the error of a call. Plain DOM; every text from the server or the user is set as
// text (never parsed as HTML). The ids, classes and data attributes are the page's interface to
// the e2e test (tests/tests/e2e/web_example.rs): change them together.

import { Code, ConnectError } from "@connectrpc/connect";

import {
  Color,
  TerminationSchema,
  type AdjudicateGameResponse,
  type ListLegalMovesResponse,
} from "../gen/arbiter/v1/arbiter_pb";
import { BadRequestSchema, ErrorInfoSchema } from "../gen/google/rpc/error_details_pb";

type Child = Node | string;

/** An element with attributes (`class`, `id`, `data-*`, ...) and children. */
function el(
  tag: string,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    element.setAttribute(name, value);
  }
  element.append(...children);
  return element;
}

/** Replaces what `out` shows, and says in `data-state` where the call is. */
function replace(
  out: HTMLElement,
  state: "pending" | "done" | "error",
  ...children: Child[]
): void {
  out.dataset.state = state;
  out.setAttribute("aria-busy", state === "pending" ? "true" : "false");
  out.replaceChildren(...children);
}

export function showPending(out: HTMLElement): void {
  replace(out, "pending", el("p", { class: "pending" }, "Asking the server..."));
}

/** The side to move and what the position is (check, checkmate, stalemate). */
function describeStatus(response: ListLegalMovesResponse): string {
  const status = response.status;
  if (status === undefined) {
    return "";
  }
  const side = status.sideToMove === Color.WHITE ? "White" : "Black";
  if (status.isCheckmate) {
    return `${side} is checkmated (FIDE Laws 5.1.1).`;
  }
  if (status.isStalemate) {
    return `${side} is stalemated (FIDE Laws 5.2.1).`;
  }
  const count = status.legalMoveCount;
  const moves = `${count} legal move${count === 1 ? "" : "s"}`;
  return `${moves}, ${side} to move${status.isCheck ? ", in check" : ""}.`;
}

export function showMoves(out: HTMLElement, response: ListLegalMovesResponse): void {
  const count = String(response.moves.length);
  const list = el("ol", { id: "moves", class: "moves", "data-count": count });
  for (const move of response.moves) {
    list.append(
      el(
        "li",
        { class: "move", "data-uci": move.uci, "data-san": move.san },
        el("span", { class: "san" }, move.san),
        " ",
        el("code", { class: "uci" }, move.uci),
      ),
    );
  }
  replace(
    out,
    "done",
    el("p", { class: "summary" }, describeStatus(response)),
    el("p", { class: "fen" }, "FEN: ", el("code", {}, response.fen)),
    list,
  );
}

/** A term and its description, for a `<dl>`. */
function entry(term: string, cls: string, ...description: Child[]): HTMLElement[] {
  return [el("dt", {}, term), el("dd", { class: cls }, ...description)];
}

export function showVerdict(out: HTMLElement, response: AdjudicateGameResponse): void {
  const outcome = response.outcome;
  const termination = TerminationSchema.value[outcome?.termination ?? 0]?.name ?? "";
  const ongoing = outcome === undefined || outcome.fideArticle === "";
  const verdict = el("dl", {
    id: "verdict",
    "data-result": outcome?.resultText ?? "*",
    "data-termination": termination,
    "data-article": outcome?.fideArticle ?? "",
  });
  verdict.append(
    ...entry("Result", "result", outcome?.resultText ?? "*"),
    ...entry("Termination", "termination", ongoing ? "the game is not over" : outcome.description),
    ...entry(
      "FIDE article",
      "article",
      ongoing ? "none" : outcome.fideArticle,
      ...(response.laws === "" ? [] : [` (${response.laws})`]),
    ),
    ...entry("Explanation", "explanation", response.explanation),
  );
  if (response.declaredResult !== "") {
    verdict.append(...entry("Declared result", "declared-result", response.declaredResult));
  }
  if (response.disagreement) {
    verdict.append(...entry("Disagreement", "disagreement", response.disagreementReason));
  }
  if (response.warnings.length > 0) {
    const warnings = el("ul", {});
    for (const warning of response.warnings) {
      warnings.append(el("li", { class: "warning", "data-code": warning.code }, warning.message));
    }
    verdict.append(...entry("Warnings", "warnings", warnings));
  }
  replace(out, "done", verdict);
}

/** gRPC's names of the status codes, by number. */
const CODE_NAMES: Record<Code, string> = {
  [Code.Canceled]: "CANCELLED",
  [Code.Unknown]: "UNKNOWN",
  [Code.InvalidArgument]: "INVALID_ARGUMENT",
  [Code.DeadlineExceeded]: "DEADLINE_EXCEEDED",
  [Code.NotFound]: "NOT_FOUND",
  [Code.AlreadyExists]: "ALREADY_EXISTS",
  [Code.PermissionDenied]: "PERMISSION_DENIED",
  [Code.ResourceExhausted]: "RESOURCE_EXHAUSTED",
  [Code.FailedPrecondition]: "FAILED_PRECONDITION",
  [Code.Aborted]: "ABORTED",
  [Code.OutOfRange]: "OUT_OF_RANGE",
  [Code.Unimplemented]: "UNIMPLEMENTED",
  [Code.Internal]: "INTERNAL",
  [Code.Unavailable]: "UNAVAILABLE",
  [Code.DataLoss]: "DATA_LOSS",
  [Code.Unauthenticated]: "UNAUTHENTICATED",
};

/**
 * The status code and message of a failed call, the fields the server names as wrong
 * (`google.rpc.BadRequest`) and its reason (`google.rpc.ErrorInfo`). A call the browser could
 * not make at all (no server there, or its CORS answer does not allow this page's origin) fails
 * in fetch() before any status: the page says what to check.
 */
export function showError(out: HTMLElement, id: string, error: ConnectError, server: string): void {
  const code = CODE_NAMES[error.code] ?? String(error.code);
  const box = el(
    "div",
    { id, class: "error", role: "alert", "data-code": code },
    el(
      "p",
      {},
      el("strong", { class: "code" }, code),
      ": ",
      el("span", { class: "message" }, error.rawMessage),
    ),
  );

  const violations = error
    .findDetails(BadRequestSchema)
    .flatMap((detail) => detail.fieldViolations);
  if (violations.length > 0) {
    const list = el("ul", { class: "violations" });
    for (const violation of violations) {
      list.append(
        el(
          "li",
          { class: "violation", "data-field": violation.field },
          el("code", { class: "field" }, violation.field),
          ": ",
          el("span", { class: "description" }, violation.description),
        ),
      );
    }
    box.append(list);
  }

  for (const info of error.findDetails(ErrorInfoSchema)) {
    // The stable cause of a refused move or position, and the article of the Laws it breaks.
    const cause = info.metadata["cause"] ?? "";
    const article = info.metadata["article"] ?? "";
    const why = [cause, article === "" ? "" : `FIDE Laws ${article}`].filter((s) => s !== "");
    box.append(
      el(
        "p",
        {
          class: "reason",
          "data-reason": info.reason,
          "data-cause": cause,
          "data-article": article,
        },
        "Reason: ",
        el("code", {}, info.reason),
        why.length > 0 ? ` (${why.join(", ")})` : "",
      ),
    );
  }

  if (error.code === Code.Unknown && error.cause instanceof TypeError) {
    box.dataset.network = "true";
    box.append(
      el(
        "p",
        { class: "hint" },
        `The browser could not call ${server}: is arbiter serving there, and was it started with ` +
          `--cors-allowed-origins ${window.location.origin}?`,
      ),
    );
  }
  replace(out, "error", box);
}
