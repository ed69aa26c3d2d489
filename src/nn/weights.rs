//! The weights file: a network written as versioned JSON at `f32` precision, and read back
//! with every field checked.

use super::{Activation, Mlp, WEIGHTS_FORMAT, WEIGHTS_VERSION};
use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

impl Mlp {
    /// Writes the network as a weights file (see the module documentation), numbers at `f32`
    /// precision, with an optional `description`.
    pub fn to_json_with_description(&self, description: Option<&str>) -> String {
        #[derive(Serialize)]
        struct LayerOut {
            inputs: usize,
            outputs: usize,
            weights: Vec<f32>,
            biases: Vec<f32>,
        }
        #[derive(Serialize)]
        struct FileOut<'a> {
            format: &'a str,
            version: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            description: Option<&'a str>,
            activation: &'a str,
            layers: Vec<LayerOut>,
        }
        let layers = (0..self.layers())
            .map(|l| LayerOut {
                inputs: self.sizes[l],
                outputs: self.sizes[l + 1],
                weights: self.weights(l).iter().map(|&v| v as f32).collect(),
                biases: self.biases(l).iter().map(|&v| v as f32).collect(),
            })
            .collect();
        let file = FileOut {
            format: WEIGHTS_FORMAT,
            version: WEIGHTS_VERSION,
            description,
            activation: self.activation.name(),
            layers,
        };
        serde_json::to_string(&file).expect("a weights file always serializes")
    }

    /// Writes the network as a weights file (see the module documentation).
    pub fn to_json(&self) -> String {
        self.to_json_with_description(None)
    }

    /// Reads a weights file written by [`Mlp::to_json`]; every number is taken at `f32`
    /// precision.
    pub fn from_json(text: &str) -> Result<Mlp, WeightsError> {
        let root: Value =
            serde_json::from_str(text).map_err(|e| WeightsError::Json(e.to_string()))?;
        let obj = root
            .as_object()
            .ok_or_else(|| invalid("(top level)", "is not an object"))?;
        for key in obj.keys() {
            if !matches!(
                key.as_str(),
                "format" | "version" | "description" | "activation" | "layers"
            ) {
                return Err(WeightsError::Unknown { field: key.clone() });
            }
        }
        let format = field(obj, "format", "")?
            .as_str()
            .ok_or_else(|| invalid("format", "is not a string"))?;
        if format != WEIGHTS_FORMAT {
            return Err(invalid(
                "format",
                &format!("is `{format}`, not `{WEIGHTS_FORMAT}`"),
            ));
        }
        let version = field(obj, "version", "")?
            .as_u64()
            .ok_or_else(|| invalid("version", "is not a non-negative integer"))?;
        if version != WEIGHTS_VERSION {
            return Err(WeightsError::Version { found: version });
        }
        if let Some(d) = obj.get("description") {
            if !d.is_string() {
                return Err(invalid("description", "is not a string"));
            }
        }
        let act_name = field(obj, "activation", "")?
            .as_str()
            .ok_or_else(|| invalid("activation", "is not a string"))?;
        let activation = Activation::from_name(act_name).ok_or_else(|| {
            invalid(
                "activation",
                &format!("is `{act_name}`, not `relu` or `tanh`"),
            )
        })?;
        let layers = field(obj, "layers", "")?
            .as_array()
            .ok_or_else(|| invalid("layers", "is not an array"))?;
        if layers.is_empty() {
            return Err(invalid("layers", "is empty"));
        }
        let mut sizes = Vec::with_capacity(layers.len() + 1);
        let mut blocks = Vec::with_capacity(layers.len());
        for (l, layer) in layers.iter().enumerate() {
            let path = format!("layers[{l}]");
            let lobj = layer
                .as_object()
                .ok_or_else(|| invalid(&path, "is not an object"))?;
            for key in lobj.keys() {
                if !matches!(key.as_str(), "inputs" | "outputs" | "weights" | "biases") {
                    return Err(WeightsError::Unknown {
                        field: format!("{path}.{key}"),
                    });
                }
            }
            let size = |name: &str| -> Result<usize, WeightsError> {
                let f = format!("{path}.{name}");
                let v = field(lobj, name, &path)?
                    .as_u64()
                    .filter(|&n| n > 0 && n <= 1 << 20)
                    .ok_or_else(|| invalid(&f, "is not a positive integer up to 1048576"))?;
                Ok(v as usize)
            };
            let n_in = size("inputs")?;
            let n_out = size("outputs")?;
            if l == 0 {
                sizes.push(n_in);
            } else if n_in != sizes[l] {
                return Err(invalid(
                    &format!("{path}.inputs"),
                    &format!("is {n_in}, but the previous layer has {} outputs", sizes[l]),
                ));
            }
            sizes.push(n_out);
            let weights = numbers(
                field(lobj, "weights", &path)?,
                &format!("{path}.weights"),
                n_in * n_out,
            )?;
            let biases = numbers(
                field(lobj, "biases", &path)?,
                &format!("{path}.biases"),
                n_out,
            )?;
            blocks.push((weights, biases));
        }
        let mut mlp = Mlp::zeros(&sizes, activation);
        for (l, (w, b)) in blocks.into_iter().enumerate() {
            let start = mlp.offsets[l];
            mlp.params[start..start + w.len()].copy_from_slice(&w);
            mlp.params[start + w.len()..start + w.len() + b.len()].copy_from_slice(&b);
        }
        Ok(mlp)
    }
}

/// A problem with a weights file.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum WeightsError {
    /// The text is not JSON.
    #[error("weights file is not valid JSON: {0}")]
    Json(String),
    /// A required field is absent.
    #[error("weights file: field `{field}` is missing")]
    Missing {
        /// The field's path, such as `layers[1].biases`.
        field: String,
    },
    /// A field that the format does not have.
    #[error("weights file: field `{field}` is not part of the format")]
    Unknown {
        /// The field's path.
        field: String,
    },
    /// A field whose value is wrong.
    #[error("weights file: field `{field}` {problem}")]
    Invalid {
        /// The field's path, such as `layers[0].weights[17]`.
        field: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A version this build does not read.
    #[error(
        "weights file: field `version` is {found}; this build reads version {WEIGHTS_VERSION}"
    )]
    Version {
        /// The version found.
        found: u64,
    },
}

fn invalid(field: &str, problem: &str) -> WeightsError {
    WeightsError::Invalid {
        field: field.to_string(),
        problem: problem.to_string(),
    }
}

pub(super) fn field<'v>(
    obj: &'v serde_json::Map<String, Value>,
    name: &str,
    parent: &str,
) -> Result<&'v Value, WeightsError> {
    obj.get(name).ok_or_else(|| WeightsError::Missing {
        field: if parent.is_empty() {
            name.to_string()
        } else {
            format!("{parent}.{name}")
        },
    })
}

pub(super) fn numbers(value: &Value, path: &str, len: usize) -> Result<Vec<f64>, WeightsError> {
    let arr = value
        .as_array()
        .ok_or_else(|| invalid(path, "is not an array of numbers"))?;
    if arr.len() != len {
        return Err(invalid(
            path,
            &format!("has {} numbers, expected {len}", arr.len()),
        ));
    }
    arr.iter()
        .enumerate()
        .map(|(k, v)| {
            let x = v
                .as_f64()
                .ok_or_else(|| invalid(&format!("{path}[{k}]"), "is not a number"))?;
            let x32 = x as f32;
            if !x32.is_finite() {
                return Err(invalid(&format!("{path}[{k}]"), "is outside the f32 range"));
            }
            Ok(f64::from(x32))
        })
        .collect()
}
