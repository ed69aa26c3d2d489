//! The summary of an import as the CLI prints it ([`orrery::view::import`]), as HTML: its
//! lines as paragraphs, its tables as tables (scrolling in their own box when wider than
//! the panel) and its named values as a two-column table.

use orrery::view::import::Block;
use yew::prelude::*;

/// The blocks of a summary, in a `div` of id `id`.
pub fn report(id: &'static str, blocks: &[Block]) -> Html {
    html! {
        <div class="import-report" id={id}>
            { for blocks.iter().map(block) }
        </div>
    }
}

fn block(b: &Block) -> Html {
    match b {
        Block::Line(text) => html! { <p class="hint import-line">{ text }</p> },
        Block::Table { header, rows } => html! {
            <div class="table-x">
                <table class="job-types import-table">
                    <thead><tr>{ for header.iter().map(|h| html! { <th>{ *h }</th> }) }</tr></thead>
                    <tbody>
                        { for rows.iter().map(|r| html! {
                            <tr>{ for r.iter().map(|c| html! { <td>{ c }</td> }) }</tr>
                        }) }
                    </tbody>
                </table>
            </div>
        },
        Block::Pairs(pairs) => html! {
            <table class="kv import-pairs">
                <tbody>
                    { for pairs.iter().map(|(k, v)| html! { <tr><th>{ k }</th><td>{ v }</td></tr> }) }
                </tbody>
            </table>
        },
    }
}
