//! Server reflection as grpcurl uses it: services are listed, and the types a client must decode
//! are found by name, including the `google.rpc` error details (`BadRequest`, `ErrorInfo`) that
//! every `INVALID_ARGUMENT` carries, so that a client can print them instead of base64.

use arbiter_e2e::{server::Server, within};
use prost::Message as _;
use tonic_reflection::pb::v1::{
    ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
    server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
};

/// Sends one reflection request and returns its answer.
async fn ask(server: &Server, request: MessageRequest) -> MessageResponse {
    let mut client = ServerReflectionClient::new(server.channel().await);
    let outbound = one_request(ServerReflectionRequest {
        host: String::new(),
        message_request: Some(request),
    });
    let mut inbound = within(
        "ServerReflectionInfo",
        client.server_reflection_info(outbound),
    )
    .await
    .expect("reflection call")
    .into_inner();
    within("reflection answer", inbound.message())
        .await
        .expect("reflection stream")
        .expect("one answer")
        .message_response
        .expect("a response")
}

/// A request stream of one message.
fn one_request(
    request: ServerReflectionRequest,
) -> impl tonic::codegen::tokio_stream::Stream<Item = ServerReflectionRequest> {
    tonic::codegen::tokio_stream::iter([request])
}

/// The names of the files in a file-descriptor answer, and the message names they declare.
fn files(response: MessageResponse) -> Vec<(String, Vec<String>)> {
    let MessageResponse::FileDescriptorResponse(files) = response else {
        panic!("expected file descriptors, got {response:?}");
    };
    files
        .file_descriptor_proto
        .iter()
        .map(|bytes| {
            let file = prost_types::FileDescriptorProto::decode(bytes.as_slice()).unwrap();
            let messages = file
                .message_type
                .iter()
                .map(|m| m.name().to_owned())
                .collect();
            (file.name().to_owned(), messages)
        })
        .collect()
}

#[tokio::test]
async fn error_detail_types_are_found_by_name() {
    let server = Server::start();
    for (symbol, message) in [
        ("google.rpc.BadRequest", "BadRequest"),
        ("google.rpc.ErrorInfo", "ErrorInfo"),
        ("arbiter.v1.ApplyMovesRequest", "ApplyMovesRequest"),
    ] {
        let files = files(ask(&server, MessageRequest::FileContainingSymbol(symbol.into())).await);
        assert!(
            files
                .iter()
                .any(|(_, messages)| messages.iter().any(|m| m == message)),
            "{symbol}: {files:?}"
        );
    }
    // The files the error details import are served too (a client resolves them next).
    let files = files(
        ask(
            &server,
            MessageRequest::FileContainingSymbol("google.protobuf.Duration".into()),
        )
        .await,
    );
    assert!(
        files
            .iter()
            .any(|(name, _)| name == "google/protobuf/duration.proto"),
        "{files:?}"
    );
}

#[tokio::test]
async fn services_are_listed() {
    let server = Server::start();
    let MessageResponse::ListServicesResponse(list) =
        ask(&server, MessageRequest::ListServices(String::new())).await
    else {
        panic!("expected a service list");
    };
    let mut names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    names.sort();
    // The v1alpha reflection service answers too (older grpcurl), but v1 lists itself only.
    assert_eq!(
        names,
        [
            "arbiter.v1.ArbiterService",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
        ]
    );
}
