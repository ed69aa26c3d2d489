//! The sweep's link: the experiment's share link with the sweep's values in its query
//! (`?sweep=...&metric=p99&axis=checkpoint`), and the values a page opened with one starts
//! with.

use super::values::parse_values;
use super::SweepPanel;
use yew::prelude::*;

/// The sweep's values from the page's address (`?sweep=...&metric=p99&axis=checkpoint`),
/// if any: the values, p99, the checkpoint axis.
pub(super) fn from_address() -> Option<(String, bool, bool)> {
    let search = web_sys::window()?.location().search().ok()?;
    let mut values = None;
    let mut p99 = false;
    let mut checkpoint = false;
    for pair in search.trim_start_matches('?').split('&') {
        match pair.split_once('=') {
            Some(("sweep", v)) => values = Some(v.replace("%2C", ",").replace(',', ", ")),
            Some(("metric", m)) => p99 = m == "p99",
            Some(("axis", a)) => checkpoint = a == "checkpoint",
            _ => {}
        }
    }
    Some((values?, p99, checkpoint))
}

impl SweepPanel {
    /// The sweep link: the experiment's share link with the values in its query.
    pub(super) fn copy_link(&mut self, ctx: &Context<Self>) {
        let Some(w) = web_sys::window() else { return };
        let loc = w.location();
        let values: Vec<String> = match parse_values(&self.values) {
            Ok(v) => v.iter().map(|x| x.to_string()).collect(),
            Err(e) => {
                self.error = Some(format!("Values: {e}."));
                return;
            }
        };
        let checkpoint = self.checkpoint && ctx.props().exp.faults.is_some();
        let base = format!(
            "{}{}?sweep={}{}{}",
            loc.origin().unwrap_or_default(),
            loc.pathname().unwrap_or_default(),
            values.join(","),
            if self.p99 && !checkpoint {
                "&metric=p99"
            } else {
                ""
            },
            if checkpoint { "&axis=checkpoint" } else { "" }
        );
        let link = ctx.props().exp.to_link(&base);
        if link.len() > crate::ui::MAX_LINK_LEN {
            self.error = Some(
                "The experiment is too large for a link; share its Experiment JSON instead.".into(),
            );
            return;
        }
        let _ = w.navigator().clipboard().write_text(&link);
        self.link = Some(link);
    }
}
