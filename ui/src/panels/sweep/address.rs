//! The sweep's link: the experiment's share link with the sweep's values in its query
//! (`?sweep=10,20,40&metric=p99`, `?sweep=600,1800,auto&axis=checkpoint`,
//! `?sweep=0,2,4&axis=failures`), and the values a page opened with one starts with.
//! `orrery sweep --link` reads the experiment of such a link (its fragment), and the query
//! says which flag its values go to: `--rates` (or `--loads`), `--checkpoint-intervals`,
//! `--failure-rates`.

use super::values::{parse_values, Axis, Choice};
use super::SweepPanel;
use yew::prelude::*;

/// The sweep's values from the page's address (`?sweep=...&metric=p99&axis=checkpoint`),
/// if any: the values, p99, the axis picked.
pub(super) fn from_address() -> Option<(String, bool, Choice)> {
    let search = web_sys::window()?.location().search().ok()?;
    let mut values = None;
    let mut p99 = false;
    let mut choice = Choice::Load;
    for pair in search.trim_start_matches('?').split('&') {
        match pair.split_once('=') {
            Some(("sweep", v)) => values = Some(v.replace("%2C", ",").replace(',', ", ")),
            Some(("metric", m)) => p99 = m == "p99",
            Some(("axis", a)) => choice = Choice::from_name(a),
            _ => {}
        }
    }
    Some((values?, p99, choice))
}

impl SweepPanel {
    /// The sweep link: the experiment's share link with the values in its query.
    pub(super) fn copy_link(&mut self, ctx: &Context<Self>) {
        let Some(w) = web_sys::window() else { return };
        let loc = w.location();
        let axis = Axis::of(self.choice, &ctx.props().exp);
        let values: Vec<String> = match parse_values(&self.values, axis) {
            Ok(v) => v.iter().map(|x| x.text()).collect(),
            Err(e) => {
                self.refused = Some(e);
                return;
            }
        };
        self.refused = None;
        let query = match axis {
            Axis::Rates | Axis::Loads if self.p99 => "&metric=p99",
            Axis::Rates | Axis::Loads => "",
            Axis::Checkpoint => "&axis=checkpoint",
            Axis::Failures => "&axis=failures",
        };
        let base = format!(
            "{}{}?sweep={}{query}",
            loc.origin().unwrap_or_default(),
            loc.pathname().unwrap_or_default(),
            values.join(","),
        );
        let link = ctx.props().exp.to_link(&base);
        if link.len() > crate::MAX_LINK_LEN {
            self.error = Some(
                "The experiment is too large for a link; share its Experiment JSON instead.".into(),
            );
            return;
        }
        let _ = w.navigator().clipboard().write_text(&link);
        self.link = Some(link);
    }
}
