//! What the cross-model tests share: running the `petri` binary, scratch folders, the assets
//! made small enough for a software adapter, and checks that an output file is well formed.
// Each test file uses only part of this module.
#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root: configs are named relative to it, as a user in a checkout would.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `petri ARGS` in the repository root.
pub fn petri(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_petri"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run petri")
}

/// stdout and stderr of a finished `petri`, for messages.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs `petri ARGS` and fails the test unless it succeeded.
pub fn petri_ok(args: &[&str]) -> Output {
    let o = petri(args);
    assert!(o.status.success(), "petri {}: {}", args.join(" "), text(&o));
    o
}

/// A new empty folder for one test (the test's name keeps tests apart).
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("petri_tests_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `path` as an argument.
pub fn arg(path: &Path) -> String {
    path.display().to_string()
}

/// The assets in `assets/`, by file name.
pub fn assets() -> BTreeSet<String> {
    std::fs::read_dir(root().join("assets"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect()
}

/// An asset's JSON.
pub fn asset(name: &str) -> Value {
    let path = root().join("assets").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Writes `config` as `dir/name` and returns its path.
pub fn write_config(dir: &Path, name: &str, config: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(config).unwrap()).unwrap();
    path
}

/// Grid of the small angiogenesis config.
pub const ANGIO_GRID: [u32; 3] = [16, 16, 16];
/// Lattice of the small Min-system config.
pub const MIN_LATTICE: [u32; 3] = [16, 16, 48];

/// assets/angiogenesis_3d.json on a 16^3 grid with room for few tips, observed every 5 steps and
/// snapshotted every 10, its tips faster (small_angiogenesis_asset): everything else
/// (parameters, tumour, tips) as in the asset.
pub fn small_angiogenesis(dir: &Path) -> PathBuf {
    small_angiogenesis_asset(dir, "angiogenesis_3d.json", ANGIO_GRID)
}

/// An angiogenesis asset on a small grid with small tip capacities, observed every 5 steps and
/// snapshotted every 10. D is 0.01, not 0.00035: at the asset's D a tip moves about 0-0.5 times
/// in 20 steps on such a grid, at 0.01 about 15 times, so the outputs hold vessels.
pub fn small_angiogenesis_asset(dir: &Path, name: &str, grid: [u32; 3]) -> PathBuf {
    let mut c = asset(name);
    c["grid"] = serde_json::json!(grid);
    c["D"] = 0.01.into();
    c["tips"]["max_tips"] = 256.into();
    c["tips"]["max_segments"] = 65536.into();
    c["observe_every"] = 5.into();
    c["snapshot_every"] = 10.into();
    c["frame_every"] = 0.into();
    write_config(dir, name, &c)
}

/// assets/min-system.json in a 16 x 16 x 48 lattice at the asset's spacing: the capsule scaled
/// down (radius 7 sites, 40 sites long) with the initial counts scaled by its volume, observed
/// every 10 steps and snapshotted every 20; species, reactions, diffusion and outputs as in the
/// asset.
pub fn small_min_system(dir: &Path) -> PathBuf {
    let mut c = asset("min-system.json");
    c["lattice"]["shape"] = serde_json::json!(MIN_LATTICE);
    let capsule = &mut c["geometry"][0]["capsule"];
    capsule["center_m"] = serde_json::json!([1.28e-7, 1.28e-7, 3.84e-7]);
    capsule["length_m"] = 6.4e-7.into();
    capsule["radius_m"] = 1.12e-7.into();
    for (initial, count) in c["initial"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .zip([14, 14, 7])
    {
        initial["count"] = count.into();
    }
    c["output"]["observe_every"] = 10.into();
    c["output"]["snapshot_every"] = 20.into();
    write_config(dir, "min-system.json", &c)
}

/// assets/epidermis.json on 3 x 3 cells in a 3 x 3 box (room for 64), growing one element
/// every step so that every cell divides every 20 steps, observed every 5 steps and
/// snapshotted every 10; mechanics and genes as in the asset.
pub fn small_epidermis(dir: &Path) -> PathBuf {
    let mut c = asset("epidermis.json");
    c["box"] = serde_json::json!({"lx": 3.0, "ly": 3.0, "height": 4.0});
    c["initial"]["cells_x"] = 3.into();
    c["initial"]["cells_y"] = 3.into();
    c["initial"]["extra_elements"] = 0.into();
    c["capacity"]["max_cells"] = 64.into();
    c["growth"]["interval"] = 1.into();
    c["growth"]["delta_threshold"] = 1e9.into();
    c["observe_every"] = 5.into();
    c["snapshot_every"] = 10.into();
    c["frame_every"] = 0.into();
    write_config(dir, "epidermis.json", &c)
}

/// The gliding asset on 16 x 16 cells (cells of 0.5 as the asset's), 8 angles, 4 arc cells, 8
/// z levels, one ring: observations every 5 steps, snapshots every 10, frames every 5.
pub fn small_gliding(dir: &Path) -> PathBuf {
    let mut c = asset("gliding.json");
    c["grid"] = serde_json::json!({
        "nx": 16, "ny": 16, "lx": 8.0, "ly": 8.0, "ntheta": 8, "ns": 4, "nz": 8,
        "z_grid": "bottom", "z0": 0.1
    });
    c["initial"]["ring_radius"] = 2.0.into();
    c["initial"]["ring_spacing"] = 8.0.into();
    c["initial"]["ring_width"] = 0.7.into();
    c["observe_every"] = 5.into();
    c["snapshot_every"] = 10.into();
    c["frame_every"] = 5.into();
    write_config(dir, "gliding.json", &c)
}

/// The files in a folder, by name.
pub fn files_in(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// manifest.json of a run, which must list exactly the files in its folder and name `model`.
pub fn manifest(dir: &Path, model: &str) -> Value {
    let path = dir.join("manifest.json");
    let m: Value = serde_json::from_slice(&std::fs::read(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(m["model"], model, "{}", path.display());
    let listed: Vec<&str> = m["outputs"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: no outputs", path.display()))
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    let unique: BTreeSet<String> = listed.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "a file listed twice: {listed:?}"
    );
    assert_eq!(unique, files_in(dir), "outputs of {}", path.display());
    m
}

/// A CSV file of a header and numeric rows, as many values as columns. The first `key` columns
/// increase strictly from row to row (compared together, in order). Returns header and rows.
pub fn csv(path: &Path, key: usize) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap_or_else(|| panic!("{}: empty", path.display()))
        .split(',')
        .map(String::from)
        .collect();
    assert!(
        header
            .iter()
            .all(|h| !h.is_empty() && h.parse::<f64>().is_err()),
        "{}: header {header:?}",
        path.display()
    );
    let rows: Vec<Vec<f64>> = lines
        .enumerate()
        .map(|(i, line)| {
            let row: Vec<f64> = line
                .split(',')
                .map(|v| {
                    v.parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite())
                        .unwrap_or_else(|| panic!("{} row {}: {v:?}", path.display(), i + 1))
                })
                .collect();
            assert_eq!(row.len(), header.len(), "{} row {}", path.display(), i + 1);
            row
        })
        .collect();
    assert!(!rows.is_empty(), "{}: no rows", path.display());
    for pair in rows.windows(2) {
        assert!(
            pair[0][..key] < pair[1][..key],
            "{}: rows do not increase: {:?} then {:?}",
            path.display(),
            &pair[0][..key],
            &pair[1][..key]
        );
    }
    (header, rows)
}

/// Bytes of one value of a VTK data type.
fn vtk_size(ty: &str) -> usize {
    match ty {
        "Int8" | "UInt8" => 1,
        "Int16" | "UInt16" => 2,
        "Int32" | "UInt32" | "Float32" => 4,
        "Int64" | "UInt64" | "Float64" => 8,
        other => panic!("VTK type {other}"),
    }
}

/// A VTK image (.vti) whose arrays are raw appended blocks (a UInt64 byte count, then the
/// values): the XML header parses, the extent is `extent` (point indices, "0 nx 0 ny 0 nz"
/// style), every array of PointData or CellData holds one value per point or cell and the
/// blocks fill the appended section exactly. Float32 arrays hold finite numbers. Returns the
/// names of the arrays.
pub fn vti(path: &Path, extent: [u32; 3]) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let open = b"<AppendedData encoding=\"raw\">";
    let at = find(&bytes, open).unwrap_or_else(|| panic!("{}: no AppendedData", path.display()));
    let underscore = at
        + open.len()
        + find(&bytes[at + open.len()..], b"_")
            .unwrap_or_else(|| panic!("{}: no '_'", path.display()));
    let close = b"</AppendedData>";
    let end = rfind(&bytes, close).unwrap_or_else(|| panic!("{}: unclosed", path.display()));
    let tail = std::str::from_utf8(&bytes[end..]).unwrap();
    assert_eq!(
        tail.split_whitespace().collect::<String>(),
        "</AppendedData></VTKFile>",
        "{}",
        path.display()
    );
    let head = std::str::from_utf8(&bytes[..at]).unwrap();
    let xml = format!("{head}</VTKFile>");
    let doc =
        roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let root = doc.root_element();
    assert_eq!(root.attribute("type"), Some("ImageData"));
    assert_eq!(root.attribute("header_type"), Some("UInt64"));
    assert_eq!(root.attribute("byte_order"), Some("LittleEndian"));
    let want = format!("0 {} 0 {} 0 {}", extent[0], extent[1], extent[2]);
    let image = child(root, "ImageData");
    assert_eq!(image.attribute("WholeExtent"), Some(want.as_str()));
    let piece = child(image, "Piece");
    assert_eq!(piece.attribute("Extent"), Some(want.as_str()));
    let [x, y, z] = extent.map(|e| e as usize);
    let data = &bytes[underscore + 1..end];
    let mut blocks = Vec::new();
    let mut names = Vec::new();
    for (section, values) in [
        ("PointData", (x + 1) * (y + 1) * (z + 1)),
        ("CellData", x.max(1) * y.max(1) * z.max(1)),
    ] {
        for array in child(piece, section)
            .children()
            .filter(|n| n.has_tag_name("DataArray"))
        {
            let name = array.attribute("Name").unwrap().to_string();
            let ty = array.attribute("type").unwrap();
            assert_eq!(array.attribute("format"), Some("appended"), "{name}");
            let offset: usize = array.attribute("offset").unwrap().parse().unwrap();
            let count = u64::from_le_bytes(data[offset..offset + 8].try_into().unwrap()) as usize;
            assert_eq!(count, values * vtk_size(ty), "{}: {name}", path.display());
            let block = &data[offset + 8..offset + 8 + count];
            if ty == "Float32" {
                let bad = block
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                    .find(|v| !v.is_finite());
                assert!(bad.is_none(), "{}: {name} holds {bad:?}", path.display());
            }
            blocks.push((offset, 8 + count));
            names.push(name);
        }
    }
    blocks.sort();
    let mut next = 0;
    for (offset, len) in blocks {
        assert_eq!(offset, next, "{}: gap or overlap", path.display());
        next = offset + len;
    }
    // After the last block: only the line break before </AppendedData>.
    assert!(
        data[next..].iter().all(u8::is_ascii_whitespace),
        "{}: {} stray bytes",
        path.display(),
        data.len() - next
    );
    names
}

/// A VTK polydata file (.vtp) of lines, ASCII: points come in threes, every line's point
/// indices are points of the file, offsets close each line, and every cell array has one value
/// per line. Returns (points, lines).
pub fn vtp(path: &Path) -> (usize, usize) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc =
        roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let root = doc.root_element();
    assert_eq!(root.attribute("type"), Some("PolyData"));
    let piece = child(child(root, "PolyData"), "Piece");
    let number = |a: &str| -> usize { piece.attribute(a).unwrap().parse().unwrap() };
    let (points, lines) = (number("NumberOfPoints"), number("NumberOfLines"));
    let values = |node: roxmltree::Node| -> Vec<f64> {
        node.text()
            .unwrap_or("")
            .split_whitespace()
            .map(|v| v.parse::<f64>().unwrap())
            .collect()
    };
    let xyz = values(child(child(piece, "Points"), "DataArray"));
    assert_eq!(xyz.len(), 3 * points, "{}", path.display());
    assert!(xyz.iter().all(|v| v.is_finite()));
    let line_arrays = child(piece, "Lines");
    let named = |n: &str| {
        line_arrays
            .children()
            .find(|c| c.attribute("Name") == Some(n))
            .unwrap_or_else(|| panic!("{}: no {n}", path.display()))
    };
    let connectivity = values(named("connectivity"));
    let offsets = values(named("offsets"));
    assert_eq!(offsets.len(), lines, "{}", path.display());
    assert_eq!(
        offsets.last().copied().unwrap_or(0.0) as usize,
        connectivity.len()
    );
    assert!(offsets.windows(2).all(|w| w[0] < w[1]));
    assert!(connectivity.iter().all(|&i| (i as usize) < points));
    if let Some(cells) = piece.children().find(|n| n.has_tag_name("CellData")) {
        for array in cells.children().filter(|n| n.has_tag_name("DataArray")) {
            assert_eq!(values(array).len(), lines, "{:?}", array.attribute("Name"));
        }
    }
    (points, lines)
}

/// A VTK polydata file (.vtp) of points, ASCII: points come in threes, each is one vertex
/// (connectivity 0, 1, ..., offsets 1, 2, ...), and every point array has one finite value per
/// point. Returns the number of points and the names of the point arrays.
pub fn vtp_points(path: &Path) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc =
        roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let piece = child(child(doc.root_element(), "PolyData"), "Piece");
    let points: usize = piece.attribute("NumberOfPoints").unwrap().parse().unwrap();
    assert_eq!(
        piece.attribute("NumberOfVerts"),
        Some(points.to_string().as_str())
    );
    let values = |node: roxmltree::Node| -> Vec<f64> {
        let v: Vec<f64> = node
            .text()
            .unwrap_or("")
            .split_whitespace()
            .map(|v| v.parse::<f64>().unwrap())
            .collect();
        assert!(v.iter().all(|x| x.is_finite()), "{}", path.display());
        v
    };
    assert_eq!(
        values(child(child(piece, "Points"), "DataArray")).len(),
        3 * points
    );
    let verts: Vec<Vec<f64>> = child(piece, "Verts")
        .children()
        .filter(|n| n.has_tag_name("DataArray"))
        .map(values)
        .collect();
    let count = |from: usize| (from..from + points).map(|i| i as f64).collect::<Vec<_>>();
    assert_eq!(verts, [count(0), count(1)], "{}", path.display());
    let mut names = Vec::new();
    for array in child(piece, "PointData")
        .children()
        .filter(|n| n.has_tag_name("DataArray"))
    {
        assert_eq!(values(array).len(), points, "{:?}", array.attribute("Name"));
        names.push(array.attribute("Name").unwrap().to_string());
    }
    (points, names)
}

/// A PNG that decodes completely (every chunk's checksum, the image data); returns its size.
pub fn png(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader
        .next_frame(&mut buf)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(info.width > 0 && info.height > 0, "{}", path.display());
    (info.width, info.height)
}

fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, tag: &str) -> roxmltree::Node<'a, 'i> {
    node.children()
        .find(|n| n.has_tag_name(tag))
        .unwrap_or_else(|| panic!("no <{tag}> in <{}>", node.tag_name().name()))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}
