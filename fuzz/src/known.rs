//! Findings in files another engineer owns, reported to them and counted apart until
//! fixed. Remove a rule here once its fix is on main (the corpus files under
//! `corpus/known/` then pass the strict oracle: move them up to `corpus/`).

use crate::input::Input;
use crate::oracle::Violation;
use crate::targets::Answer;

/// The known issue `violation` is, if it is one.
pub fn known_issue(input: &Input, answer: &Answer, violation: &Violation) -> Option<&'static str> {
    // The three found so far (a Content-Type refusal and a body nested too deep echoing
    // `"id": null`, numeric ids re-printed) are fixed on main; their inputs are in the
    // corpus. A new one is added here with the owner's note.
    let _ = (input, answer, violation);
    None
}
