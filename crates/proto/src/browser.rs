//! The browser codec of the judge console and the tournament office, generated from `proto/` (through the
//! descriptor set protoc made at build time): a JavaScript module with each
//! message the console sends or reads, field by field (number, name, wire
//! type, message or enum type, repeated). A small hand-written runtime in the
//! console (`console.js`) encodes and decodes protobuf with this table, so
//! the browser never hard-codes a field number. The generated file is
//! committed as `services/gateway/assets/console_proto.js`; a test checks it
//! equals what this module generates now.

use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FileDescriptorSet};
use std::collections::{BTreeMap, BTreeSet};

/// The messages the console uses directly; the ones they contain follow.
pub const CONSOLE_ROOTS: &[&str] = &[
    "mafia.v1.OpenGameRequest",
    "mafia.v1.OpenGameResponse",
    "mafia.v1.JudgeCommand",
    "mafia.v1.RefereeReply",
    "mafia.v1.GetGameRequest",
    "mafia.v1.GetGameResponse",
    // The scoring service's Command, for the post-game inputs.
    "mafia.v1.CommandRequest",
    "mafia.v1.CommandReply",
];

/// The scoring service's messages the tournament office (`/office`) and
/// the ruling panels send or read; in the same generated module.
pub const OFFICE_ROOTS: &[&str] = &[
    "mafia.v1.CreateTournamentRequest",
    "mafia.v1.RegisterPlayersCsvRequest",
    "mafia.v1.TournamentRef",
    "mafia.v1.TournamentSummary",
    "mafia.v1.StandingsReply",
    "mafia.v1.ExportRequest",
    "mafia.v1.ExportReply",
    "mafia.v1.PlayerHistoryRequest",
    "mafia.v1.PlayerHistoryReply",
    "mafia.v1.OpenRoundRequest",
    "mafia.v1.OpenRoundReply",
    "mafia.v1.SeatRoundRequest",
    "mafia.v1.SeatRoundReply",
    "mafia.v1.ListTournamentsRequest",
    "mafia.v1.ListTournamentsReply",
    "mafia.v1.PlayersCsvPreview",
    "mafia.v1.PlanSeatingRequest",
    "mafia.v1.SeatingPlan",
    "mafia.v1.IssueCredentialRequest",
    "mafia.v1.IssueCredentialReply",
    "mafia.v1.RevokeCredentialRequest",
    "mafia.v1.CredentialList",
];

#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    #[error("the descriptor set does not decode: {0}")]
    Descriptor(#[from] prost::DecodeError),
    #[error("message {0} is not in proto/")]
    Unknown(String),
    #[error("field {message}.{field} has a type the console codec does not handle")]
    Unsupported { message: String, field: String },
}

/// The JavaScript module (an ES module exporting `SCHEMA` and `ENUMS`).
pub fn console_codec_js() -> Result<String, CodecError> {
    let set = FileDescriptorSet::decode(crate::v1::FILE_DESCRIPTOR_SET)?;
    let mut messages = BTreeMap::new();
    let mut enums = BTreeMap::new();
    for file in &set.file {
        let package = file.package();
        for m in &file.message_type {
            messages.insert(format!("{package}.{}", m.name()), m);
        }
        for e in &file.enum_type {
            let values: Vec<(String, i32)> = e
                .value
                .iter()
                .map(|v| (v.name().to_owned(), v.number()))
                .collect();
            enums.insert(format!("{package}.{}", e.name()), values);
        }
    }
    // The roots and every message reachable from them, in name order.
    let mut wanted = BTreeSet::new();
    let mut todo: Vec<String> = CONSOLE_ROOTS
        .iter()
        .chain(OFFICE_ROOTS)
        .map(|s| (*s).to_owned())
        .collect();
    let mut used_enums = BTreeSet::new();
    while let Some(name) = todo.pop() {
        let m = messages
            .get(&name)
            .ok_or_else(|| CodecError::Unknown(name.clone()))?;
        if !wanted.insert(name.clone()) {
            continue;
        }
        for f in &m.field {
            let ty = f.type_name().trim_start_matches('.').to_owned();
            match f.r#type() {
                Type::Message => todo.push(ty),
                Type::Enum => {
                    used_enums.insert(ty);
                }
                _ => {}
            }
        }
    }
    let mut js = String::from(
        "// Generated from proto/mafia/v1/*.proto by crates/proto/src/browser.rs; do not edit.\n\
         // Regenerate: MAFIA_BLESS=1 cargo test -p mafia-proto --test console_codec\n\
         // Each field: [number, name, type, message or enum type, repeated, oneof, optional].\n\
         export const SCHEMA = {\n",
    );
    for name in &wanted {
        js.push_str(&format!("  \"{name}\": [\n"));
        for f in fields(name, messages[name])? {
            js.push_str(&format!("    {f},\n"));
        }
        js.push_str("  ],\n");
    }
    js.push_str("};\nexport const ENUMS = {\n");
    for name in &used_enums {
        let values = enums
            .get(name)
            .ok_or_else(|| CodecError::Unknown(name.clone()))?;
        let list: Vec<String> = values.iter().map(|(n, v)| format!("{n}: {v}")).collect();
        js.push_str(&format!("  \"{name}\": {{ {} }},\n", list.join(", ")));
    }
    js.push_str("};\n");
    Ok(js)
}

/// One message's fields as JavaScript array literals.
fn fields(name: &str, m: &DescriptorProto) -> Result<Vec<String>, CodecError> {
    m.field
        .iter()
        .map(|f| {
            let ty = match f.r#type() {
                Type::Uint32 => "uint32",
                Type::Uint64 => "uint64",
                Type::Int32 => "int32",
                Type::Int64 => "int64",
                Type::Bool => "bool",
                Type::String => "string",
                Type::Bytes => "bytes",
                Type::Enum => "enum",
                Type::Message => "message",
                _ => {
                    return Err(CodecError::Unsupported {
                        message: name.to_owned(),
                        field: f.name().to_owned(),
                    })
                }
            };
            let type_name = match f.r#type() {
                Type::Message | Type::Enum => {
                    format!("\"{}\"", f.type_name().trim_start_matches('.'))
                }
                _ => "null".to_owned(),
            };
            // A proto3 `optional` is a synthetic one-field oneof: present
            // or not, like a oneof member, but not a real choice.
            let oneof = match f.oneof_index {
                Some(i) if !f.proto3_optional() => {
                    format!("\"{}\"", m.oneof_decl[i as usize].name())
                }
                _ => "null".to_owned(),
            };
            Ok(format!(
                "[{}, \"{}\", \"{ty}\", {type_name}, {}, {oneof}, {}]",
                f.number(),
                f.name(),
                f.label() == Label::Repeated,
                f.proto3_optional()
            ))
        })
        .collect()
}
