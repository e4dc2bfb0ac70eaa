//! Any text given to the record parser: an error or a record, never a panic;
//! a parsed record writes back to text that parses to the same record, and
//! replaying it never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mafia_record::Record;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(record) = Record::parse(text) {
        let again = Record::parse(&record.to_jsonl()).expect("a written record parses");
        assert_eq!(again.to_jsonl(), record.to_jsonl());
        let _ = record.replay();
    }
});
