//! Reading the files a person chooses, and downloading what the page makes.

use orrery::workload::InlineFile;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Largest profile folder read (bytes of wanted files).
const MAX_FOLDER_BYTES: f64 = 32.0 * 1024.0 * 1024.0;

/// A file's name and text, or why it could not be read.
pub type FileText = Result<(String, String), String>;

/// A folder's name, the files the core reads (paths relative to the folder) and how many
/// others were left out; or why it could not be read.
pub type FolderFiles = Result<(String, Vec<InlineFile>, usize), String>;

/// The first file chosen in the file input an event came from; the input is cleared, so
/// that choosing the same file again reads it again.
pub fn chosen_file(e: &Event) -> Option<web_sys::File> {
    let input: HtmlInputElement = e.target_unchecked_into();
    let file = input.files().and_then(|l| l.get(0));
    input.set_value("");
    file
}

/// Read a file's text, then hand `done` its name and text or a message naming it.
pub fn read_text(file: web_sys::File, done: Callback<FileText>) {
    let name = file.name();
    wasm_bindgen_futures::spawn_local(async move {
        match JsFuture::from(file.text()).await {
            Ok(v) => done.emit(Ok((name, v.as_string().unwrap_or_default()))),
            Err(e) => done.emit(Err(format!(
                "{name}: cannot read the file ({})",
                crate::js_text(&e)
            ))),
        }
    });
}

/// Files of a profile folder the core reads (the rest is not read, nor put in links).
fn wanted_profile_file(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    base == "app.json"
        || orrery::workload::dl2_files::PROFILE_FILES.contains(&base)
        || (base.ends_with(".csv")
            && ["placements", "scalability", "validation-"]
                .iter()
                .any(|k| base.starts_with(k)))
}

/// A file's path inside the folder the user chose: the chosen folder's own name is dropped
/// (`traces/cifar10/placements.csv` -> `cifar10/placements.csv`) unless the folder is an
/// application folder itself (`cifar10/placements.csv` stays).
fn folder_relative(path: &str) -> String {
    let path = path.replace('\\', "/");
    match path.split_once('/') {
        Some((_, rest)) if rest.contains('/') => rest.to_string(),
        _ => path,
    }
}

/// Read the files of a chosen folder (an `<input webkitdirectory>`), keeping those the core
/// reads, with paths relative to the folder; then hand them to `done` at once.
pub fn read_folder(list: web_sys::FileList, done: Callback<FolderFiles>) {
    let mut files: Vec<(String, web_sys::File)> = (0..list.length())
        .filter_map(|i| list.get(i))
        .map(|f| {
            let rel = js_sys::Reflect::get(&f, &JsValue::from_str("webkitRelativePath"))
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default();
            (if rel.is_empty() { f.name() } else { rel }, f)
        })
        .collect();
    orrery::order::sort_by(&mut files, |a, b| a.0.cmp(&b.0));
    let folder = files
        .first()
        .and_then(|(p, _)| p.split('/').next())
        .unwrap_or("folder")
        .to_string();
    wasm_bindgen_futures::spawn_local(async move {
        let mut out = Vec::new();
        let mut skipped = 0;
        let mut bytes = 0.0;
        for (path, file) in files {
            let rel = folder_relative(&path);
            if !wanted_profile_file(&rel) {
                skipped += 1;
                continue;
            }
            bytes += file.size();
            if bytes > MAX_FOLDER_BYTES {
                done.emit(Err(format!(
                    "{folder}: more than {} MB of application files; choose the folder of the applications only",
                    MAX_FOLDER_BYTES / (1024.0 * 1024.0)
                )));
                return;
            }
            match JsFuture::from(file.text()).await {
                Ok(v) => out.push(InlineFile {
                    path: rel,
                    text: v.as_string().unwrap_or_default(),
                }),
                Err(e) => {
                    done.emit(Err(format!(
                        "{path}: cannot read the file ({})",
                        crate::js_text(&e)
                    )));
                    return;
                }
            }
        }
        done.emit(Ok((folder, out, skipped)));
    });
}

/// Download `contents` as a file.
pub fn download(name: &str, mime: &str, contents: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(contents));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)
        .map_err(|e| crate::js_text(&e))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| crate::js_text(&e))?;
    download_url(name, &url)?;
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Download what an address holds as a file.
fn download_url(name: &str, url: &str) -> Result<(), String> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = doc
        .create_element("a")
        .map_err(|e| crate::js_text(&e))?
        .unchecked_into();
    a.set_href(url);
    a.set_download(name);
    a.click();
    Ok(())
}

/// Download `bytes` as a file of type `mime`, through a Blob URL.
pub fn download_bytes(name: &str, mime: &str, bytes: &[u8]) -> Result<(), String> {
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts)
        .map_err(|e| format!("{e:?}"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| format!("{e:?}"))?;
    download_url(name, &url)?;
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}
