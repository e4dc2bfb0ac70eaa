//! Shared GraphQL subscriptions. Subscribers whose operations select the
//! same fields of the same feed (`table`, `tables`, `events`) in the same
//! audience form a group: the group follows the hub once and, for each
//! event, executes the selection once into the `payload` bytes that every
//! member then sends inside its own envelope
//! (`{"id":…,"type":"next","payload":…}`). Only the envelope is per
//! subscriber.
//!
//! Only plain operations are served this way: one subscription field,
//! fields and aliases (and `__typename`), no fragments or directives, well
//! typed arguments. Anything else, and any error (an unknown table, a
//! forbidden one, the per-connection cap), takes async-graphql's own path,
//! which gives the usual answer.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use async_graphql::parser::types::{DocumentOperations, OperationType, Selection, SelectionSet};
use async_graphql::Value as ConstValue;
use bytes::Bytes;
use mafia_rules::Audience;
use serde_json::Value;
use tokio::sync::Notify;

use mafia_record::GameId;

use crate::auth::{Caller, ForGame, Games};
use crate::graphql_types::{FeedMessage, GameEvent, HallMessage};
use crate::hub::{AudienceEvent, Ended, Hub, Subscription as HubSubscription};
use crate::messages::{GameFeed, HallFeed};
use crate::ws::frame as ws_frame;
use crate::ws::Conn;

/// Fields in one shared operation at most; bigger ones take the general
/// path (which also enforces the complexity limit).
const MAX_FIELDS: usize = 64;

/// The subscription fields that can be shared: which hub feed each follows.
/// Their types, arguments and fields come from the schema ([`FieldTable`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Root {
    /// `game(id, from)`: one game's feed.
    Game,
    /// `games`: the hall.
    Games,
    /// `events(gameId, after)`: one game's deltas, as events.
    Events,
}

impl Root {
    fn of(field: &str) -> Option<Root> {
        match field {
            "game" => Some(Root::Game),
            "games" => Some(Root::Games),
            "events" => Some(Root::Events),
            _ => None,
        }
    }
}

/// A field as the schema states it.
#[derive(Debug, Clone)]
struct FieldDef {
    /// The named type under any list and non-null wrappers.
    ty: String,
    /// Whether that type is an object (it needs a selection).
    object: bool,
    /// Arguments: name → (type as written, e.g. `Int!`; has a default).
    args: HashMap<String, (String, bool)>,
}

/// The object types of the schema and their fields, read from its SDL
/// (`Schema::sdl()`), so the shared path states nothing of the schema
/// itself.
#[derive(Debug, Clone)]
pub struct FieldTable {
    types: HashMap<String, HashMap<String, FieldDef>>,
    subscription: String,
}

/// Why an SDL could not be read as a field table.
#[derive(Debug, thiserror::Error)]
pub enum SdlError {
    #[error("unparsable SDL: {0}")]
    Parse(String),
    #[error("the schema has no subscription root")]
    NoSubscription,
}

impl FieldTable {
    pub fn from_sdl(sdl: &str) -> Result<FieldTable, SdlError> {
        use async_graphql::parser::types::{TypeKind, TypeSystemDefinition};
        let doc =
            async_graphql::parser::parse_schema(sdl).map_err(|e| SdlError::Parse(e.to_string()))?;
        let mut objects = HashMap::new();
        let mut subscription = None;
        for def in &doc.definitions {
            match def {
                TypeSystemDefinition::Schema(s) => {
                    subscription = s.node.subscription.as_ref().map(|n| n.node.to_string());
                }
                TypeSystemDefinition::Type(t) => {
                    if let TypeKind::Object(o) = &t.node.kind {
                        objects.insert(t.node.name.node.to_string(), o.fields.clone());
                    }
                }
                TypeSystemDefinition::Directive(_) => {}
            }
        }
        let names: std::collections::HashSet<String> = objects.keys().cloned().collect();
        let types = objects
            .into_iter()
            .map(|(ty, fields)| {
                let fields = fields
                    .iter()
                    .map(|f| {
                        let f = &f.node;
                        let base = named(&f.ty.node).to_owned();
                        let args = f
                            .arguments
                            .iter()
                            .map(|a| {
                                let a = &a.node;
                                (
                                    a.name.node.to_string(),
                                    (a.ty.node.to_string(), a.default_value.is_some()),
                                )
                            })
                            .collect();
                        let def = FieldDef {
                            object: names.contains(&base),
                            ty: base,
                            args,
                        };
                        (f.name.node.to_string(), def)
                    })
                    .collect();
                (ty, fields)
            })
            .collect();
        Ok(FieldTable {
            types,
            subscription: subscription.ok_or(SdlError::NoSubscription)?,
        })
    }

    fn field(&self, ty: &str, name: &str) -> Option<&FieldDef> {
        self.types.get(ty)?.get(name)
    }
}

/// The named type under list and non-null wrappers.
fn named(ty: &async_graphql::parser::types::Type) -> &str {
    use async_graphql::parser::types::BaseType;
    match &ty.base {
        BaseType::Named(n) => n.as_str(),
        BaseType::List(inner) => named(inner),
    }
}

/// One selected field: its response key, its name, and for object fields
/// the object's type and the selection below it.
#[derive(Debug)]
struct Sel {
    key: String,
    name: String,
    sub: Option<(String, Vec<Sel>)>,
}

fn selection(
    table: &FieldTable,
    ty: &str,
    set: &SelectionSet,
    fields: &mut usize,
    out: &mut Vec<Sel>,
) -> Option<()> {
    if set.items.is_empty() {
        return None;
    }
    for item in &set.items {
        let Selection::Field(f) = &item.node else {
            return None;
        };
        let f = &f.node;
        *fields += 1;
        if *fields > MAX_FIELDS || !f.directives.is_empty() || !f.arguments.is_empty() {
            return None;
        }
        let key = f.response_key().node.to_string();
        let name = f.name.node.to_string();
        // Two fields under one key must agree; simplest to take none.
        if out.iter().any(|s| s.key == key) {
            return None;
        }
        let below = &f.selection_set.node;
        let sub = if name == "__typename" {
            if !below.items.is_empty() {
                return None;
            }
            None
        } else {
            let def = table.field(ty, &name)?;
            match (def.object, below.items.is_empty()) {
                (false, true) => None,
                (true, false) => {
                    let mut v = Vec::new();
                    selection(table, &def.ty, below, fields, &mut v)?;
                    Some((def.ty.clone(), v))
                }
                _ => return None,
            }
        };
        out.push(Sel { key, name, sub });
    }
    Some(())
}

/// What a shareable subscribe message asks for.
#[derive(Debug)]
pub struct Plan {
    root: Root,
    /// The root field's type (`FeedMessage`, …).
    ty: String,
    key: String,
    fields: Vec<Sel>,
    game_id: Option<GameId>,
    /// `from` (game) or `after` (events).
    from: Option<u64>,
    /// The normalized selection, part of the group key.
    canonical: String,
}

fn canonical(sels: &[Sel], out: &mut String) {
    for (i, s) in sels.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&s.key);
        out.push(':');
        out.push_str(&s.name);
        if let Some((_, sub)) = &s.sub {
            out.push('{');
            canonical(sub, out);
            out.push('}');
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestPayload {
    query: String,
    #[serde(default)]
    variables: Option<Value>,
    #[serde(default)]
    operation_name: Option<String>,
}

/// Whether a variable declared as `var` may feed an argument of type `arg`.
fn fits(var: &str, arg: &str) -> bool {
    var == arg || (!arg.ends_with('!') && var.strip_suffix('!') == Some(arg))
}

/// Whether a literal value is of the argument's (scalar) type, as the
/// feed's arguments are: `String`, and `Int` that are never negative.
fn literal_fits(v: &ConstValue, arg: &str) -> bool {
    match (v, arg.trim_end_matches('!')) {
        (ConstValue::Null, _) => !arg.ends_with('!'),
        (ConstValue::String(_), "String") => true,
        (ConstValue::Number(n), "Int") => n.as_u64().is_some_and(|n| n <= i32::MAX as u64),
        _ => false,
    }
}

impl Plan {
    /// The plan for a `subscribe`/`start` payload, or `None` when it is not
    /// a plain operation on a shareable field.
    pub fn parse(payload: &Value, table: &FieldTable) -> Option<Plan> {
        let req: RequestPayload = serde_json::from_value(payload.clone()).ok()?;
        let doc = async_graphql::parser::parse_query(&req.query).ok()?;
        if !doc.fragments.is_empty() {
            return None;
        }
        let op = match (&doc.operations, &req.operation_name) {
            (DocumentOperations::Single(op), None) => op,
            (DocumentOperations::Single(_), Some(_)) => return None,
            (DocumentOperations::Multiple(ops), name) if ops.len() == 1 => {
                let (n, op) = ops.iter().next()?;
                if name.as_ref().is_some_and(|name| n.as_str() != name) {
                    return None;
                }
                op
            }
            _ => return None,
        };
        let op = &op.node;
        if op.ty != OperationType::Subscription
            || !op.directives.is_empty()
            || op.selection_set.node.items.len() != 1
        {
            return None;
        }
        let Selection::Field(root) = &op.selection_set.node.items[0].node else {
            return None;
        };
        let root = &root.node;
        if !root.directives.is_empty() {
            return None;
        }
        let which = Root::of(root.name.node.as_str())?;
        let def = table.field(&table.subscription, root.name.node.as_str())?;
        if !def.object {
            return None;
        }
        // Variables: each declared once, with a type that fits the
        // argument it feeds, and used.
        let vars = req.variables.unwrap_or(Value::Null);
        let mut declared: HashMap<String, (String, Option<Value>, bool)> = HashMap::new();
        for d in &op.variable_definitions {
            let d = &d.node;
            if !d.directives.is_empty() {
                return None;
            }
            let value = match vars.get(d.name.node.as_str()) {
                Some(v) => Some(v.clone()),
                None => match &d.default_value {
                    Some(c) => Some(c.node.clone().into_json().ok()?),
                    None => None,
                },
            };
            let prev = declared.insert(
                d.name.node.to_string(),
                (d.var_type.node.to_string(), value, false),
            );
            if prev.is_some() {
                return None;
            }
        }
        let mut game_id = None;
        let mut from = None;
        let mut given = Vec::new();
        for (name, value) in &root.arguments {
            let (want, _) = def.args.get(name.node.as_str())?;
            let mut bad = false;
            let v = value
                .node
                .clone()
                .into_const_with(|var| match declared.get_mut(var.as_str()) {
                    Some((ty, v, used)) if fits(ty, want) => {
                        *used = true;
                        match v {
                            Some(v) => ConstValue::from_json(v.clone()).map_err(|_| ()),
                            None => Ok(ConstValue::Null),
                        }
                    }
                    _ => {
                        bad = true;
                        Err(())
                    }
                })
                .ok()?;
            if bad || !literal_fits(&v, want) || given.contains(&name.node.as_str()) {
                return None;
            }
            given.push(name.node.as_str());
            match (name.node.as_str(), v) {
                (_, ConstValue::Null) => {}
                // An id that does not parse names no game: async-graphql's
                // path says so.
                ("id" | "gameId", ConstValue::String(s)) => {
                    game_id = Some(s.parse::<GameId>().ok()?);
                }
                ("from" | "after", ConstValue::Number(n)) => from = Some(n.as_u64()?),
                _ => return None,
            }
        }
        // Required arguments the schema gives no default for.
        let missing = def.args.iter().any(|(name, (ty, default))| {
            ty.ends_with('!') && !default && !given.contains(&name.as_str())
        });
        if missing || declared.values().any(|(_, _, used)| !used) {
            return None;
        }
        if which != Root::Games && game_id.is_none() {
            return None;
        }
        let mut fields = 1;
        let mut sels = Vec::new();
        selection(
            table,
            &def.ty,
            &root.selection_set.node,
            &mut fields,
            &mut sels,
        )?;
        let mut canon = String::new();
        canonical(&sels, &mut canon);
        Some(Plan {
            root: which,
            ty: def.ty.clone(),
            key: root.response_key().node.to_string(),
            fields: sels,
            game_id,
            from: if which == Root::Events {
                Some(from.unwrap_or(0))
            } else {
                from
            },
            canonical: canon,
        })
    }

    /// The game this plan follows, if any (for the caller's checks).
    pub fn game_id(&self) -> Option<&GameId> {
        self.game_id.as_ref()
    }

    /// The GraphQL value of one hub message for this field, as JSON under
    /// the schema's field names, or `None` when the message is not for it
    /// (a snapshot on `events`).
    /// With the message's sequence (0 in the hall).
    fn value_of(&self, msg: &[u8]) -> Option<(u64, Value)> {
        let (seq, v) = match self.root {
            Root::Game => {
                let m: GameFeed = serde_json::from_slice(msg).ok()?;
                (m.seq(), serde_json::to_value(FeedMessage::from(m)))
            }
            Root::Games => {
                let m: HallFeed = serde_json::from_slice(msg).ok()?;
                (0, serde_json::to_value(HallMessage::from(m)))
            }
            Root::Events => match serde_json::from_slice(msg).ok()? {
                GameFeed::Delta { seq, event, .. } => {
                    (seq, serde_json::to_value(GameEvent::from(&event)))
                }
                GameFeed::Snapshot { .. } => return None,
            },
        };
        Some((seq, v.ok()?))
    }

    /// `{"data":{"<key>":<selection of msg>}}` and the message's sequence,
    /// or `None` when `msg` is not for this field.
    fn execute(&self, msg: &[u8]) -> Option<(u64, Bytes)> {
        let (seq, v) = self.value_of(msg)?;
        Some((seq, self.payload(&v)))
    }

    fn execute_event(&self, event: &AudienceEvent) -> Bytes {
        let v = serde_json::to_value(GameEvent::from(event)).expect("events serialize");
        self.payload(&v)
    }

    fn payload(&self, v: &Value) -> Bytes {
        let mut out = Vec::with_capacity(256);
        out.extend_from_slice(b"{\"data\":{");
        write_str(&mut out, &self.key);
        out.push(b':');
        object(&mut out, &self.ty, &self.fields, v);
        out.extend_from_slice(b"}}");
        Bytes::from(out)
    }
}

fn write_str(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(&mut *out, s).expect("strings serialize");
}

fn write_json(out: &mut Vec<u8>, v: &Value) {
    serde_json::to_writer(&mut *out, v).expect("JSON values serialize");
}

/// Writes the selection `sels` of `v`, a value of the object type `ty` as
/// JSON under its GraphQL field names; object fields recurse, lists of
/// objects map, `null` stays `null`.
fn object(out: &mut Vec<u8>, ty: &str, sels: &[Sel], v: &Value) {
    out.push(b'{');
    for (i, s) in sels.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, &s.key);
        out.push(b':');
        if s.name == "__typename" {
            write_str(out, ty);
            continue;
        }
        let field = v.get(&s.name).unwrap_or(&Value::Null);
        match &s.sub {
            None => write_json(out, field),
            Some((sub_ty, sub)) => nested(out, sub_ty, sub, field),
        }
    }
    out.push(b'}');
}

fn nested(out: &mut Vec<u8>, ty: &str, sels: &[Sel], v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Array(all) => {
            out.push(b'[');
            for (j, x) in all.iter().enumerate() {
                if j > 0 {
                    out.push(b',');
                }
                nested(out, ty, sels, x);
            }
            out.push(b']');
        }
        _ => object(out, ty, sels, v),
    }
}

/// Who a group serves: one feed in one audience, one selection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct GroupKey {
    audience: usize,
    root: Root,
    /// The game, or for the hall the games a judge may see.
    scope: String,
    selection: String,
}

/// One shared subscription of one connection: the group writes its
/// payloads, in this member's envelope, straight to the connection.
pub struct Member {
    /// Weak: a group whose game gets no more events keeps its departed
    /// members until its next payload, and their sockets must not wait
    /// for it (the connection's task holds the `Conn`).
    conn: Weak<Conn>,
    id_json: Bytes,
    kind: Envelope,
    /// The game's feed and events: the last sequence this member has.
    seen: AtomicU64,
    hall: bool,
    /// Stopped or started again: the group drops it.
    gone: AtomicBool,
    /// The group ended behind the hub: the connection starts this
    /// subscription again, from a fresh catch-up.
    restart: AtomicBool,
}

impl Member {
    pub fn needs_restart(&self) -> bool {
        self.restart.load(Ordering::Acquire)
    }
}

struct Group {
    /// What it is, for its members to start again from: one copy for all
    /// of them, not one per member (issue 15: memory per connection).
    key: GroupKey,
    plan: Arc<Plan>,
    members: Mutex<Vec<Arc<Member>>>,
    alive: AtomicBool,
    stop: Arc<Notify>,
}

impl Drop for Group {
    fn drop(&mut self) {
        self.stop.notify_one();
    }
}

/// The registry of groups; one per GraphQL router.
#[derive(Clone)]
pub struct Groups {
    hub: Hub,
    fields: Arc<FieldTable>,
    map: Arc<Mutex<HashMap<GroupKey, Weak<Group>>>>,
}

impl Groups {
    pub fn new(hub: Hub, fields: Arc<FieldTable>) -> Groups {
        Groups {
            hub,
            fields,
            map: Arc::default(),
        }
    }

    /// The schema's fields, for [`Plan::parse`].
    pub fn fields(&self) -> &FieldTable {
        &self.fields
    }

    /// Groups alive now (for tests and stats).
    pub fn len(&self) -> usize {
        let mut map = self.map.lock().expect("lock");
        map.retain(|_, g| g.strong_count() > 0);
        map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The group for `key`, started if there is none (its hub
    /// subscription exists before this returns, so a catch-up taken
    /// afterwards leaves no gap).
    fn group(
        &self,
        key: &GroupKey,
        plan: &Arc<Plan>,
        hall: &Option<Option<Arc<Games>>>,
    ) -> Option<Arc<Group>> {
        let mut map = self.map.lock().expect("lock");
        if let Some(g) = map.get(key).and_then(Weak::upgrade) {
            if g.alive.load(Ordering::Acquire) {
                return Some(g);
            }
        }
        let audience = crate::hub::AUDIENCES[key.audience];
        let sub = match hall {
            Some(only) => self.hub.subscribe_hall(audience, only.clone()),
            None => self
                .hub
                .subscribe(plan.game_id.as_ref()?, audience, None)
                .ok()?,
        };
        let stop = Arc::new(Notify::new());
        let group = Arc::new(Group {
            key: key.clone(),
            plan: plan.clone(),
            members: Mutex::new(Vec::new()),
            alive: AtomicBool::new(true),
            stop: stop.clone(),
        });
        map.retain(|_, g| g.strong_count() > 0);
        map.insert(key.clone(), Arc::downgrade(&group));
        drop(map);
        let hub = self.hub.clone();
        let plan = plan.clone();
        let weak = Arc::downgrade(&group);
        tokio::spawn(run_group(hub, plan, sub, weak, stop));
        Some(group)
    }
}

/// The frames of a run of payloads in each envelope its members use,
/// back to back: members with the same id and protocol share one.
struct Frames<'a> {
    payloads: &'a [(u64, Bytes)],
    made: Vec<(Bytes, Envelope, Bytes)>,
}

impl Frames<'_> {
    /// The frames of the payloads from the `from`th on, in `m`'s envelope.
    fn for_member(&mut self, m: &Member, from: usize) -> Bytes {
        let frames = |payloads: &[(u64, Bytes)]| {
            let envelopes: Vec<Bytes> = payloads
                .iter()
                .map(|(_, p)| envelope(&m.id_json, m.kind, p))
                .collect();
            ws_frame::texts(&envelopes)
        };
        if from > 0 {
            // Only a member that joined in the middle of the run.
            return frames(&self.payloads[from..]);
        }
        match self
            .made
            .iter()
            .find(|(id, kind, _)| *kind == m.kind && *id == m.id_json)
        {
            Some((_, _, f)) => f.clone(),
            None => {
                let f = frames(self.payloads);
                self.made.push((m.id_json.clone(), m.kind, f.clone()));
                f
            }
        }
    }
}

/// The most hub messages a group executes and writes out together.
const BATCH: usize = 64;

/// One group's loop: each hub message is executed once, framed once per
/// envelope, and written to every member's connection.
async fn run_group(
    hub: Hub,
    plan: Arc<Plan>,
    mut sub: HubSubscription,
    group: Weak<Group>,
    stop: Arc<Notify>,
) {
    let end = |lagged: bool| {
        if let Some(g) = group.upgrade() {
            let mut members = g.members.lock().expect("lock");
            g.alive.store(false, Ordering::Release);
            for m in members.drain(..) {
                let Some(conn) = m.conn.upgrade() else {
                    continue;
                };
                if lagged {
                    m.restart.store(true, Ordering::Release);
                    conn.wake();
                } else if !m.gone.load(Ordering::Acquire) {
                    let id: String = serde_json::from_slice(&m.id_json).unwrap_or_default();
                    conn.reply(&ws_frame::text(&complete_message(&id)));
                }
            }
        }
    };
    let capacity = hub.config().queue_capacity;
    loop {
        let msg = tokio::select! {
            _ = stop.notified() => return,
            m = sub.recv() => m,
        };
        match msg {
            Ok(b) => {
                let Some(g) = group.upgrade() else { return };
                // What waits already goes out with it, in one write per member.
                let mut msgs = vec![b];
                while msgs.len() < BATCH {
                    match sub.try_recv() {
                        Some(m) => msgs.push(m),
                        None => break,
                    }
                }
                let executed: Vec<(u64, Bytes)> =
                    msgs.iter().filter_map(|b| plan.execute(b)).collect();
                if executed.is_empty() {
                    continue;
                }
                let stats = hub.stats();
                stats
                    .graphql_group_executions
                    .fetch_add(executed.len() as u64, Ordering::Relaxed);
                let mut frames = Frames {
                    payloads: &executed,
                    made: Vec::new(),
                };
                let last = executed.last().map_or(0, |(seq, _)| *seq);
                g.members.lock().expect("lock").retain(|m| {
                    if m.gone.load(Ordering::Acquire) {
                        return false;
                    }
                    let Some(conn) = m.conn.upgrade() else {
                        return false;
                    };
                    let from = if m.hall {
                        0
                    } else {
                        let seen = m.seen.load(Ordering::Acquire);
                        match executed.iter().position(|(seq, _)| *seq > seen) {
                            Some(i) => i,
                            None => return true,
                        }
                    };
                    if !m.hall {
                        m.seen.store(last, Ordering::Release);
                    }
                    if conn.send(&frames.for_member(m, from), capacity) {
                        stats
                            .graphql_shared_deliveries
                            .fetch_add((executed.len() - from) as u64, Ordering::Relaxed);
                        true
                    } else {
                        // Behind: its connection starts it again.
                        stats.lagged.fetch_add(1, Ordering::Relaxed);
                        false
                    }
                });
            }
            Err(Ended::Lagged) => {
                // The group itself fell behind: every member is cut back
                // to a snapshot, as a lagging subscriber would be.
                end(true);
                return;
            }
            Err(Ended::Closed) => {
                end(false);
                return;
            }
        }
    }
}

/// How a member's envelope is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Envelope {
    /// graphql-transport-ws: `next`.
    Next,
    /// Legacy graphql-ws: `data`.
    Data,
}

/// `{"id":<id>,"type":"next","payload":<payload>}` with the payload bytes
/// spliced in.
pub fn envelope(id_json: &[u8], kind: Envelope, payload: &[u8]) -> Bytes {
    let ty: &[u8] = match kind {
        Envelope::Next => b",\"type\":\"next\",\"payload\":",
        Envelope::Data => b",\"type\":\"data\",\"payload\":",
    };
    let mut out = Vec::with_capacity(id_json.len() + payload.len() + 40);
    out.extend_from_slice(b"{\"id\":");
    out.extend_from_slice(id_json);
    out.extend_from_slice(ty);
    out.extend_from_slice(payload);
    out.push(b'}');
    Bytes::from(out)
}

/// `{"type":"complete","id":<id>}`.
pub fn complete_message(id: &str) -> Bytes {
    Bytes::from(serde_json::json!({"type": "complete", "id": id}).to_string())
}

/// One connection's shared subscription: what it needs to start again
/// after a cut-back, and its place in its group.
pub struct Shared {
    groups: Groups,
    hall: Option<Option<Arc<Games>>>,
    member: Arc<Member>,
    /// Keeps the group alive while this member is in it.
    group: Arc<Group>,
}

impl Shared {
    pub fn member(&self) -> &Member {
        &self.member
    }

    /// Stops it: the group forgets the member.
    pub fn stop(&self) {
        self.member.gone.store(true, Ordering::Release);
    }

    /// Starts it again from a fresh catch-up (`events` keeps its
    /// numbering: live events after the cut-back, as before); `None`
    /// when its game or the hub is gone.
    pub fn restart(&self, conn: &Arc<Conn>) -> Option<Shared> {
        self.stop();
        let keep = (self.group.plan.root == Root::Events)
            .then(|| self.member.seen.load(Ordering::Acquire));
        let next = start_member(
            &self.groups,
            &self.group.key,
            &self.group.plan,
            &self.hall,
            None,
            false,
            conn,
            self.member.id_json.clone(),
            self.member.kind,
        )?;
        if let Some(seen) = keep {
            next.member.seen.fetch_max(seen, Ordering::AcqRel);
        }
        Some(next)
    }
}

/// Starts a shared subscription on `conn`: its own catch-up, executed for
/// it alone, then the group's payloads, all in the envelope of `id` and
/// `kind`. `None`: not for the shared path (an unknown game, a game the
/// caller may not see), which async-graphql then answers.
pub fn start(
    groups: &Groups,
    plan: Plan,
    access: &Caller,
    conn: &Arc<Conn>,
    id: &str,
    kind: Envelope,
) -> Option<Shared> {
    let plan = Arc::new(plan);
    let (key, hall) = match plan.root {
        Root::Games => {
            let (a, only) = access.hall();
            let scope = format!("{:?}", only.as_deref());
            (
                GroupKey {
                    audience: slot(a),
                    root: plan.root,
                    scope,
                    selection: plan.canonical.clone(),
                },
                Some(only),
            )
        }
        Root::Game | Root::Events => {
            let game = plan.game_id.as_ref()?;
            if !groups.hub.has_game(game) {
                return None;
            }
            let a = access.audience_for(game).ok()?;
            (
                GroupKey {
                    audience: slot(a),
                    root: plan.root,
                    scope: game.to_string(),
                    selection: plan.canonical.clone(),
                },
                None,
            )
        }
    };
    let id_json = Bytes::from(serde_json::to_vec(id).expect("strings serialize"));
    start_member(
        groups, &key, &plan, &hall, plan.from, true, conn, id_json, kind,
    )
}

fn slot(a: Audience) -> usize {
    crate::hub::AUDIENCES
        .iter()
        .position(|x| *x == a)
        .expect("three audiences")
}

/// Writes this member's catch-up to its connection and joins the group,
/// both under the group's lock, so that nothing falls between the two and
/// the group's next payload comes after the catch-up.
#[allow(clippy::too_many_arguments)]
fn start_member(
    groups: &Groups,
    key: &GroupKey,
    plan: &Arc<Plan>,
    hall: &Option<Option<Arc<Games>>>,
    from: Option<u64>,
    first: bool,
    conn: &Arc<Conn>,
    id_json: Bytes,
    kind: Envelope,
) -> Option<Shared> {
    let group = groups.group(key, plan, hall)?;
    let mut members = group.members.lock().expect("lock");
    if !group.alive.load(Ordering::Acquire) {
        // It ended between the lookup and the lock: a new one is started.
        drop(members);
        return start_member(groups, key, plan, hall, from, first, conn, id_json, kind);
    }
    let audience = crate::hub::AUDIENCES[key.audience];
    let mut queue = Vec::new();
    let seen;
    match (plan.root, hall) {
        (_, Some(only)) => {
            let all = groups.hub.hall_snapshot(audience, only.as_ref());
            queue.extend(plan.execute(&all).map(|(_, p)| p));
            seen = 0;
        }
        (Root::Events, None) => {
            let game = plan.game_id.as_ref()?;
            let after = from.unwrap_or(0);
            let (initial, seq) = groups.hub.initial(game, audience, Some(after)).ok()?;
            let snapshot = initial.first().is_some_and(|b| {
                matches!(
                    serde_json::from_slice::<GameFeed>(b),
                    Ok(GameFeed::Snapshot { .. })
                )
            });
            if !first {
                // A cut-back: live events only.
                seen = seq;
            } else if snapshot && after < seq {
                let evs = groups
                    .hub
                    .events(game, audience, after, usize::MAX)
                    .unwrap_or_default();
                for e in &evs {
                    queue.push(plan.execute_event(e));
                }
                let last = evs.last().map_or(after, |e| u64::from(e.seq).max(after));
                // Live deltas resume after both the backlog and the
                // catch-up point.
                seen = last.max(seq).max(after);
            } else {
                for b in &initial {
                    queue.extend(plan.execute(b).map(|(_, p)| p));
                }
                seen = seq.max(after);
            }
        }
        (_, None) => {
            let game = plan.game_id.as_ref()?;
            let (initial, seq) = groups.hub.initial(game, audience, from).ok()?;
            for b in &initial {
                queue.extend(plan.execute(b).map(|(_, p)| p));
            }
            seen = seq;
        }
    }
    for payload in &queue {
        conn.reply(&ws_frame::text(&envelope(&id_json, kind, payload)));
    }
    let member = Arc::new(Member {
        conn: Arc::downgrade(conn),
        id_json,
        kind,
        seen: AtomicU64::new(seen),
        hall: hall.is_some(),
        gone: AtomicBool::new(false),
        restart: AtomicBool::new(false),
    });
    members.push(member.clone());
    drop(members);
    Some(Shared {
        groups: groups.clone(),
        hall: hall.clone(),
        member,
        group,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const G: &str = "cup.main.r1.t1.g1";

    fn plan(query: &str, variables: Value) -> Option<Plan> {
        let table = crate::graphql::field_table();
        Plan::parse(&json!({"query": query, "variables": variables}), &table)
    }

    #[test]
    fn plain_operations_are_shared_and_unusual_ones_are_not() {
        // What the npm graphql-ws client in tests/e2e and the bench send.
        let e2e = "subscription ($gameId: String!) {\n  events(gameId: $gameId, after: 0) { seq at kind event }\n}";
        let p = plan(e2e, json!({"gameId": G})).unwrap();
        assert_eq!(
            (p.root, p.game_id(), p.from),
            (Root::Events, Some(&G.parse().unwrap()), Some(0))
        );
        let bench = "subscription($id: String!) { game(id: $id) { kind seq event { at } } }";
        assert!(plan(bench, json!({"id": G})).is_some());
        assert!(plan(
            "subscription Hall { games { kind games { gameId } } }",
            Value::Null
        )
        .is_some());
        // Same selection, same group key, whatever the spacing or variable name.
        let a = plan(
            "subscription { game(id: \"cup.main.r1.t1.g1\") { kind seq } }",
            Value::Null,
        )
        .unwrap();
        let b = plan(
            "subscription($x: String!) {game(id:$x){kind\nseq}}",
            json!({"x": G}),
        )
        .unwrap();
        assert_eq!(a.canonical, b.canonical);

        for (q, vars) in [
            (
                "subscription { game(id: \"cup.main.r1.t1.g1\") { ...F } } fragment F on FeedMessage { kind }",
                Value::Null,
            ),
            (
                "subscription { game(id: \"cup.main.r1.t1.g1\") @include(if: true) { kind } }",
                Value::Null,
            ),
            (
                "subscription { game(id: \"cup.main.r1.t1.g1\") { kind @skip(if: false) } }",
                Value::Null,
            ),
            (
                "subscription { game(id: \"cup.main.r1.t1.g1\") { nope } }",
                Value::Null,
            ),
            (
                "subscription { game(id: \"cup.main.r1.t1.g1\") { event } }",
                Value::Null,
            ),
            (
                "subscription { game(id: \"cup.main.r1.t1.g1\") { a: kind a: seq } }",
                Value::Null,
            ),
            ("subscription { game(id: 3) { kind } }", Value::Null),
            (
                "subscription { game(id: \"cup.main.r1.t1.g1\", from: -1) { kind } }",
                Value::Null,
            ),
            ("subscription { game { kind } }", Value::Null),
            (
                "subscription($id: String!, $unused: Int) { game(id: $id) { kind } }",
                json!({"id": G}),
            ),
            (
                "subscription($id: String) { game(id: $id) { kind } }",
                json!({"id": G}),
            ),
            (
                "subscription($id: String!) { game(id: $id) { kind } }",
                Value::Null,
            ),
            (
                "subscription { game(id: \"cup.main.r1.t1.g1\") { kind } games { kind } }",
                Value::Null,
            ),
            ("query { games { gameId } }", Value::Null),
            ("subscription {", Value::Null),
        ] {
            assert!(plan(q, vars).is_none(), "shared: {q}");
        }
    }

    #[test]
    fn the_envelope_splices_the_id_around_the_shared_payload() {
        let id = serde_json::to_vec("a\"b").unwrap();
        let e = envelope(&id, Envelope::Data, br#"{"data":{}}"#);
        let v: Value = serde_json::from_slice(&e).unwrap();
        assert_eq!(
            v,
            json!({"id": "a\"b", "type": "data", "payload": {"data": {}}})
        );
    }
}
