// The example page: asks an arbiter server, over gRPC-Web, for the legal moves of a FEN and the
// verdict of a PGN game. The client and the messages are generated from proto/ by
// protoc-gen-es (examples/web/gen/, `make web-example`); the calls go through Connect's gRPC-Web
// transport, which speaks the same protocol as any gRPC-Web client.
//
// Query parameters fill the fields, and `run=1` makes both calls on load (the e2e test loads
// the page this way, without clicks):
//   ?server=http://127.0.0.1:50051&fen=startpos&pgn=<URL-encoded PGN>&run=1

import { ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";

import { ArbiterService } from "../gen/arbiter/v1/arbiter_pb";
import { showError, showMoves, showPending, showVerdict } from "./render";

/** How long one call may take before the page gives up on it (DEADLINE_EXCEEDED). */
const CALL_TIMEOUT_MS = 30_000;

function input(id: string): HTMLInputElement | HTMLTextAreaElement {
  const element = document.getElementById(id);
  if (!(element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement)) {
    throw new Error(`no field #${id}`);
  }
  return element;
}

function output(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (element === null) {
    throw new Error(`no element #${id}`);
  }
  return element;
}

/** A client of arbiter.v1.ArbiterService at the address in the server field. */
function arbiter(): Client<typeof ArbiterService> {
  const transport = createGrpcWebTransport({
    baseUrl: input("server").value.trim().replace(/\/+$/, ""),
    defaultTimeoutMs: CALL_TIMEOUT_MS,
  });
  return createClient(ArbiterService, transport);
}

async function listLegalMoves(): Promise<void> {
  const out = output("moves-output");
  showPending(out);
  try {
    const response = await arbiter().listLegalMoves({
      position: { kind: { case: "fen", value: input("fen").value.trim() } },
    });
    showMoves(out, response);
  } catch (error) {
    showError(out, "moves-error", ConnectError.from(error), input("server").value);
  }
}

async function adjudicate(): Promise<void> {
  const out = output("verdict-output");
  showPending(out);
  try {
    const response = await arbiter().adjudicateGame({
      source: { case: "pgn", value: input("pgn").value },
    });
    showVerdict(out, response);
  } catch (error) {
    showError(out, "verdict-error", ConnectError.from(error), input("server").value);
  }
}

function start(): void {
  output("origin").textContent = window.location.origin;

  const params = new URLSearchParams(window.location.search);
  for (const field of ["server", "fen", "pgn"]) {
    const value = params.get(field);
    if (value !== null) {
      input(field).value = value;
    }
  }

  output("moves-form").addEventListener("submit", (event) => {
    event.preventDefault();
    void listLegalMoves();
  });
  output("adjudicate-form").addEventListener("submit", (event) => {
    event.preventDefault();
    void adjudicate();
  });

  if (params.get("run") === "1") {
    void listLegalMoves();
    void adjudicate();
  }
}

start();
