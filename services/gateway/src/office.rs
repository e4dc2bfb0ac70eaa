//! The tournament office (`/office`, issue 37): the organiser's and the
//! chief judge's browser workplace. The page talks gRPC-web to the scoring
//! service itself (the one API the CLI uses too: its reads are
//! `GetTournament`'s detail, its changes commands); the gateway only serves
//! it with the scoring service's URL written in (`ConsoleConfig`), checks
//! the sign-in's credential (`/office/api/whoami`), serves the
//! presets the create form starts from (rule sets with the overrides a
//! form offers, each named with its clauses, and the scoring schemes), and
//! QR codes for the judges' credential sheet, drawn here from a POST body
//! so no token goes into a URL or a log line.

use axum::extract::{Query, State};
use axum::http::header;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use mafia_rules::{RuleSet, RuleSetId};
use mafia_tournament::Scheme;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::{authorize, ApiError, AppState, ConsoleConfig, FeedQuery};

const PAGE: &str = include_str!("../assets/office.html");

/// Path, content type, content. The office also loads the console's
/// `grpc_web.js` and `console_proto.js` (`console::CONSOLE_ASSETS`).
pub const OFFICE_ASSETS: &[(&str, &str, &str)] = &[
    (
        "/assets/office.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/office.js"),
    ),
    (
        "/assets/office.css",
        "text/css; charset=utf-8",
        include_str!("../assets/office.css"),
    ),
];

/// The page's placeholder replaced by the scoring service's URL.
const SCORING_SLOT: &str = "{{SCORING_URL}}";

/// The page as served: the scoring service's URL written in.
pub fn page(config: &ConsoleConfig) -> String {
    PAGE.replace(
        SCORING_SLOT,
        &crate::console::attribute(config.scoring_url.as_deref().unwrap_or("")),
    )
}

/// Bytes of the office's first load: its page, script, style and the
/// gRPC-web client with its codec (the tabs' modules load when opened).
pub fn first_load_bytes(config: &ConsoleConfig) -> usize {
    let shared = ["/assets/grpc_web.js", "/assets/console_proto.js"];
    page(config).len()
        + OFFICE_ASSETS.iter().map(|a| a.2.len()).sum::<usize>()
        + crate::console::CONSOLE_ASSETS
            .iter()
            .filter(|a| shared.contains(&a.0))
            .map(|a| a.2.len())
            .sum::<usize>()
}

/// The page, its assets, the presets and the QR codes: none needs a token
/// (the page signs in to the scoring service, which checks every call).
pub fn pages() -> Router<AppState> {
    crate::assets::embedded(OFFICE_ASSETS)
        .route("/office", get(office_page))
        .route("/office/api/presets", get(presets))
        .route("/office/api/qr", post(qr_codes))
}

/// What the office reads with the signed-in credential.
pub fn api() -> Router<AppState> {
    Router::new().route("/office/api/whoami", get(whoami))
}

/// The signed-in caller, if the office is his: an organiser or a chief
/// judge (403 for other roles, 401 for an unknown token).
fn office_caller(
    state: &AppState,
    token: Option<&str>,
    headers: &HeaderMap,
) -> Result<mafia_access::Caller, ApiError> {
    let caller = authorize(state, token, headers)?;
    if !matches!(
        caller.role(),
        Some(mafia_access::Role::Organiser | mafia_access::Role::ChiefJudge)
    ) {
        return Err(ApiError::forbidden(
            "the office takes an organiser's or the chief judge's token".into(),
        ));
    }
    Ok(caller)
}

/// Who the credential names: what the sign-in checks.
async fn whoami(
    State(state): State<AppState>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let caller = office_caller(&state, q.token.as_deref(), &headers)?;
    Ok(Json(
        json!({"role": caller.name(), "holder": caller.holder()}),
    ))
}

async fn office_page(State(state): State<AppState>) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        [(
            header::CONTENT_SECURITY_POLICY,
            state.pages.content_security_policy(),
        )],
        page(&state.console),
    )
        .into_response()
}

/// One rule-set parameter the create form offers to override: its path in
/// `Params` (dots between levels), what it is in English and Russian, and
/// the clauses of the rulebooks that set it.
struct Override {
    path: &'static str,
    en: &'static str,
    ru: &'static str,
    clauses: &'static str,
}

/// The parameters a club most often changes; anything else goes in the
/// form's JSON box (checked by the scoring service like these).
const OVERRIDES: &[Override] = &[
    Override {
        path: "speech_secs",
        en: "Speech (s)",
        ru: "Речь (с)",
        clauses: "docs/rules-audit.md §Timers",
    },
    Override {
        path: "tie_speech_secs",
        en: "Tie speech (s)",
        ru: "Речь при равенстве (с)",
        clauses: "docs/rules-audit.md §Timers",
    },
    Override {
        path: "last_words_secs",
        en: "Last words (s)",
        ru: "Последнее слово (с)",
        clauses: "docs/rules-audit.md §Timers",
    },
    Override {
        path: "several_out_last_words_secs",
        en: "Last words when several leave (s)",
        ru: "Последнее слово при выбывании нескольких (с)",
        clauses: "minsk2017 §7.7",
    },
    Override {
        path: "testament_secs",
        en: "Testament after last words (s, 0: none)",
        ru: "Завещание после последнего слова (с, 0 — нет)",
        clauses: "rfm §4.4.15",
    },
    Override {
        path: "several_shots_miss",
        en: "Shots at different seats make a miss",
        ru: "Выстрелы в разных игроков — промах",
        clauses: "rfm §4.5.5, classic §3.5.5, minsk2017 §4.5.5, ua §5.5",
    },
    Override {
        path: "fouls.carried_over_secs",
        en: "Nomination slot after 3 fouls (s)",
        ru: "Время на выставление после 3 фолов (с)",
        clauses: "rfm §5.5",
    },
    Override {
        path: "fouls.short_speech_secs",
        en: "Short speech after 3 fouls (s)",
        ru: "Укороченная речь после 3 фолов (с)",
        clauses: "minsk2017 §6.4",
    },
    Override {
        path: "fouls.penalties",
        en: "Small and big penalty points in play",
        ru: "Малые и большие штрафы во время игры",
        clauses: "rfm §5.10–5.11",
    },
    Override {
        path: "fouls.tie_speech_when_muted",
        en: "A muted player keeps his tie speech",
        ru: "Игрок без слова сохраняет речь при равенстве",
        clauses: "classic §6.5, minsk2017 §7.6",
    },
    Override {
        path: "nominations.withdrawal",
        en: "A nomination may be withdrawn",
        ru: "Выставление можно снять",
        clauses: "minsk2017 §4.4.3",
    },
    Override {
        path: "lift.all_players_draw",
        en: "Lifting everyone may pass (a draw)",
        ru: "Подъём всех возможен (ничья)",
        clauses: "classic §6.8, minsk2017 §7.9",
    },
    Override {
        path: "lift.at_most_half",
        en: "Never lift more than half of the living",
        ru: "Не поднимать больше половины живых",
        clauses: "ua §4.26",
    },
    Override {
        path: "removal.before_result_cancels_vote",
        en: "A removal before the result cancels the vote",
        ru: "Удаление до итогов отменяет голосование",
        clauses: "rfm §4.4.16, classic §6.1, minsk2017 §7.1, ua §4.20",
    },
];

/// What the create form starts from: each rule set's parameters, the
/// overrides the form offers with their clauses, and each scoring scheme.
async fn presets() -> Result<Json<Value>, ApiError> {
    let rules: Vec<Value> = RuleSetId::ALL
        .iter()
        .map(|&id| json!({"id": id.as_str(), "params": RuleSet::preset(id).params}))
        .collect();
    let overrides: Vec<Value> = OVERRIDES
        .iter()
        .map(|o| json!({"path": o.path, "en": o.en, "ru": o.ru, "clauses": o.clauses}))
        .collect();
    let mut schemes = serde_json::Map::new();
    for id in Scheme::PRESETS {
        let scheme = Scheme::preset(id).map_err(|e| ApiError::unavailable(e.to_string()))?;
        schemes.insert(id.to_owned(), json!(scheme));
    }
    Ok(Json(
        json!({"rules": rules, "overrides": overrides, "schemes": schemes}),
    ))
}

/// At most this many codes a request (a sheet of judges), each of at most
/// `MAX_QR_TEXT` bytes.
pub const MAX_QR_CODES: usize = 200;
pub const MAX_QR_TEXT: usize = 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QrRequest {
    texts: Vec<String>,
}

/// Each text as an SVG QR code, in order. The texts (links carrying
/// credentials) come in the body, and nothing of them is logged.
async fn qr_codes(body: axum::body::Bytes) -> Result<Json<Value>, ApiError> {
    let req: QrRequest = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("expected {{\"texts\": [...]}}: {e}")))?;
    if req.texts.len() > MAX_QR_CODES {
        return Err(ApiError::bad_request(format!(
            "at most {MAX_QR_CODES} codes a request"
        )));
    }
    let svgs = req
        .texts
        .iter()
        .map(|t| qr_svg(t))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Json(json!({ "svgs": svgs })))
}

/// One text as an SVG QR code (medium error correction, a quiet zone).
pub fn qr_svg(text: &str) -> Result<String, ApiError> {
    if text.len() > MAX_QR_TEXT {
        return Err(ApiError::bad_request(format!(
            "a QR text is at most {MAX_QR_TEXT} bytes"
        )));
    }
    let code = qrcode::QrCode::with_error_correction_level(text, qrcode::EcLevel::M)
        .map_err(|e| ApiError::bad_request(format!("no QR code for this text: {e}")))?;
    Ok(code
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(200, 200)
        .build())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every override the form offers is a scalar of every rule set's
    /// parameters, and the scoring service's check (`with_overrides`)
    /// takes it: the form never offers a field the model refuses.
    #[test]
    fn every_offered_override_is_a_parameter_of_every_rule_set() {
        for id in RuleSetId::ALL {
            let params = serde_json::to_value(RuleSet::preset(id).params).unwrap();
            for o in OVERRIDES {
                let value = o
                    .path
                    .split('.')
                    .try_fold(&params, |v, k| v.get(k))
                    .unwrap_or_else(|| panic!("{} in {id}", o.path));
                assert!(
                    value.is_number() || value.is_boolean(),
                    "{} in {id}",
                    o.path
                );
                let mut over = value.clone();
                for k in o.path.split('.').rev() {
                    over = json!({ k: over });
                }
                RuleSet::with_overrides(id, &over).unwrap_or_else(|e| panic!("{}: {e}", o.path));
                assert!(!o.en.is_empty() && !o.ru.is_empty() && !o.clauses.is_empty());
            }
        }
    }

    #[test]
    fn a_qr_code_is_an_svg_and_an_oversized_text_is_refused() {
        let Ok(svg) = qr_svg("http://10.0.0.2:8080/judge-console#token=abc") else {
            panic!("no QR code");
        };
        assert!(svg.contains("<svg") && svg.contains("<path"), "{svg}");
        assert!(qr_svg(&"x".repeat(MAX_QR_TEXT + 1)).is_err());
    }

    #[test]
    fn the_page_carries_the_scoring_url_escaped() {
        let page = page(&ConsoleConfig {
            referee_url: None,
            scoring_url: Some("http://h:1/?a=\"b\"".into()),
        });
        assert!(page.contains(r#"content="http://h:1/?a=&quot;b&quot;""#));
        assert!(!page.contains(SCORING_SLOT));
    }
}
