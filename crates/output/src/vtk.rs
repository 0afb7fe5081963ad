//! VTK XML writers that ParaView opens directly.
//!
//! * [`write_image_data`]: a regular 3-D grid of scalar fields (`.vti`).
//! * [`write_rectilinear_grid`]: the same on a grid graded per axis (`.vtr`).
//! * [`write_polylines`]: line segments with integer labels (`.vtp`), e.g. vessel sprouts.
//! * [`write_points`]: points with typed point data (`.vtp`), e.g. the elements of cells.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::error::{check_len, OutputError};

/// Writes scalar fields on a regular grid as VTK XML ImageData (`.vti`).
///
/// * `dims`: number of grid nodes along x, y, z (each at least 1).
/// * `spacing`: distance between neighbouring nodes along x, y, z (positive).
/// * `origin`: position of node (0, 0, 0).
/// * `point_fields`: `(name, values)` pairs, one value per node, x fastest, then y, then z,
///   i.e. `values[x + nx * (y + ny * z)]`.
///
/// Values are stored as raw little-endian `Float32` in an appended block with a
/// `UInt64` byte-count header, which keeps files compact and exact.
pub fn write_image_data(
    path: &Path,
    dims: [usize; 3],
    spacing: [f64; 3],
    origin: [f64; 3],
    point_fields: &[(&str, &[f32])],
) -> Result<(), OutputError> {
    if !spacing.iter().all(|s| s.is_finite() && *s > 0.0) {
        return Err(OutputError::InvalidArgument(format!(
            "spacing must be finite and positive, got {spacing:?}"
        )));
    }
    if !origin.iter().all(|o| o.is_finite()) {
        return Err(OutputError::InvalidArgument(format!(
            "origin must be finite, got {origin:?}"
        )));
    }
    let grid = format!(
        " Origin=\"{} {} {}\" Spacing=\"{} {} {}\"",
        origin[0], origin[1], origin[2], spacing[0], spacing[1], spacing[2]
    );
    write_appended(path, "ImageData", &grid, dims, point_fields, "")
}

/// Writes scalar fields on a rectilinear grid as VTK XML RectilinearGrid (`.vtr`): the nodes
/// are every combination of the per-axis coordinates, so each axis may be graded (a channel's
/// z levels clustered near a wall), which ImageData's uniform spacing cannot show.
///
/// * `coords`: the node coordinates along x, y and z, each at least one, finite and strictly
///   increasing.
/// * `point_fields`: `(name, values)` pairs, one value per node, x fastest, then y, then z,
///   i.e. `values[x + nx * (y + ny * z)]`.
///
/// Values are stored as in [`write_image_data`] (raw `Float32`, appended); the coordinates as
/// ASCII `Float64`, exactly (they are few).
pub fn write_rectilinear_grid(
    path: &Path,
    coords: [&[f64]; 3],
    point_fields: &[(&str, &[f32])],
) -> Result<(), OutputError> {
    for (axis, c) in ["x", "y", "z"].iter().zip(coords) {
        let increasing = c.windows(2).all(|w| w[0] < w[1]);
        if !(c.iter().all(|v| v.is_finite()) && increasing) {
            return Err(OutputError::InvalidArgument(format!(
                "{axis} coordinates must be finite and strictly increasing, got {c:?}"
            )));
        }
    }
    let dims = coords.map(|c| c.len());
    let mut coordinates = String::from("      <Coordinates>\n");
    for (axis, c) in ["x", "y", "z"].iter().zip(coords) {
        let values: Vec<String> = c.iter().map(|v| v.to_string()).collect();
        coordinates.push_str(&format!(
            "        <DataArray type=\"Float64\" Name=\"{axis}\" NumberOfComponents=\"1\" format=\"ascii\">{}</DataArray>\n",
            values.join(" ")
        ));
    }
    coordinates.push_str("      </Coordinates>\n");
    write_appended(
        path,
        "RectilinearGrid",
        "",
        dims,
        point_fields,
        &coordinates,
    )
}

/// The number of nodes of a grid of `dims`, each at least 1.
fn node_count(dims: [usize; 3]) -> Result<usize, OutputError> {
    if dims.contains(&0) {
        return Err(OutputError::InvalidArgument(format!(
            "grid dims must all be at least 1, got {dims:?}"
        )));
    }
    dims.iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| OutputError::InvalidArgument(format!("grid dims {dims:?} overflow")))
}

/// Writes a structured-grid file of `kind` (ImageData, RectilinearGrid) of `dims` nodes whose
/// element carries `grid` (attributes besides its extent, each after a space): one piece over
/// the whole extent with `point_fields` (a value per node) as raw Float32 in the appended
/// block, and `geometry` (the piece's own elements, e.g. Coordinates) after the point and cell
/// data.
fn write_appended(
    path: &Path,
    kind: &str,
    grid: &str,
    dims: [usize; 3],
    point_fields: &[(&str, &[f32])],
    geometry: &str,
) -> Result<(), OutputError> {
    let n = node_count(dims)?;
    for (name, values) in point_fields {
        check_name(name)?;
        check_len(name, n, values.len())?;
    }
    let block_bytes = n
        .checked_mul(std::mem::size_of::<f32>())
        .ok_or_else(|| OutputError::InvalidArgument(format!("grid dims {dims:?} overflow")))?;

    let mut xml = String::new();
    xml.push_str("<?xml version=\"1.0\"?>\n");
    xml.push_str(&format!(
        "<VTKFile type=\"{kind}\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
    ));
    let extent = format!("0 {} 0 {} 0 {}", dims[0] - 1, dims[1] - 1, dims[2] - 1);
    xml.push_str(&format!("  <{kind} WholeExtent=\"{extent}\"{grid}>\n"));
    xml.push_str(&format!("    <Piece Extent=\"{extent}\">\n"));
    // Naming the first field as the active scalar makes ParaView colour by it.
    match point_fields.first() {
        Some((first, _)) => xml.push_str(&format!(
            "      <PointData Scalars=\"{}\">\n",
            escape(first)
        )),
        None => xml.push_str("      <PointData>\n"),
    }
    // Offsets count bytes from just after the '_' that opens the appended block;
    // each block is a u64 byte count followed by the values.
    for (i, (name, _)) in point_fields.iter().enumerate() {
        let offset = i * (8 + block_bytes);
        xml.push_str(&format!(
            "        <DataArray type=\"Float32\" Name=\"{}\" NumberOfComponents=\"1\" format=\"appended\" offset=\"{offset}\"/>\n",
            escape(name)
        ));
    }
    xml.push_str("      </PointData>\n");
    xml.push_str("      <CellData>\n      </CellData>\n");
    xml.push_str(geometry);
    xml.push_str("    </Piece>\n");
    xml.push_str(&format!("  </{kind}>\n"));
    xml.push_str("  <AppendedData encoding=\"raw\">\n   _");

    crate::write_atomically(path, |out: &mut BufWriter<File>| -> std::io::Result<()> {
        out.write_all(xml.as_bytes())?;
        for (_, values) in point_fields {
            out.write_all(&(block_bytes as u64).to_le_bytes())?;
            for v in values.iter() {
                out.write_all(&v.to_le_bytes())?;
            }
        }
        out.write_all(b"\n  </AppendedData>\n</VTKFile>\n")
    })
}

/// Writes line segments as VTK XML PolyData (`.vtp`), in ASCII so it is easy to inspect.
///
/// * `points`: vertex positions.
/// * `segments`: each `[a, b]` is one 2-point line from `points[a]` to `points[b]`.
/// * `cell_fields`: `(name, values)` pairs with one integer per segment
///   (e.g. sprout id, time step), shown as cell data in ParaView.
pub fn write_polylines(
    path: &Path,
    points: &[[f32; 3]],
    segments: &[[u32; 2]],
    cell_fields: &[(&str, &[u32])],
) -> Result<(), OutputError> {
    check_finite_points(points)?;
    for (i, seg) in segments.iter().enumerate() {
        if seg.iter().any(|&p| p as usize >= points.len()) {
            return Err(OutputError::InvalidArgument(format!(
                "segment {i} {seg:?} refers to a point index >= {} (number of points)",
                points.len()
            )));
        }
    }
    for (name, values) in cell_fields {
        check_name(name)?;
        check_len(name, segments.len(), values.len())?;
    }

    crate::write_atomically(path, |out: &mut BufWriter<File>| -> std::io::Result<()> {
        write_poly_header(out, points.len(), 0, segments.len())?;

        write_points_block(out, points)?;

        match cell_fields.first() {
            Some((first, _)) => writeln!(out, "      <CellData Scalars=\"{}\">", escape(first))?,
            None => writeln!(out, "      <CellData>")?,
        }
        for (name, values) in cell_fields {
            writeln!(
                out,
                "        <DataArray type=\"UInt32\" Name=\"{}\" format=\"ascii\">",
                escape(name)
            )?;
            for v in values.iter() {
                writeln!(out, "          {v}")?;
            }
            writeln!(out, "        </DataArray>")?;
        }
        writeln!(out, "      </CellData>")?;

        // Lines are stored as a flat list of point indices (connectivity) plus the
        // end position of each line in that list (offsets): 2, 4, 6, ...
        writeln!(out, "      <Lines>")?;
        writeln!(
            out,
            "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">"
        )?;
        for s in segments {
            writeln!(out, "          {} {}", s[0], s[1])?;
        }
        writeln!(out, "        </DataArray>")?;
        writeln!(
            out,
            "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">"
        )?;
        for i in 0..segments.len() {
            writeln!(out, "          {}", 2 * (i + 1))?;
        }
        writeln!(out, "        </DataArray>")?;
        writeln!(out, "      </Lines>")?;

        write_poly_footer(out)
    })
}

/// One column of point data: a value per point, of the type ParaView shows it as.
#[derive(Clone, Copy, Debug)]
pub enum PointData<'a> {
    U32(&'a [u32]),
    I32(&'a [i32]),
    F32(&'a [f32]),
}

impl PointData<'_> {
    fn len(&self) -> usize {
        match self {
            PointData::U32(v) => v.len(),
            PointData::I32(v) => v.len(),
            PointData::F32(v) => v.len(),
        }
    }

    fn vtk_type(&self) -> &'static str {
        match self {
            PointData::U32(_) => "UInt32",
            PointData::I32(_) => "Int32",
            PointData::F32(_) => "Float32",
        }
    }

    fn non_finite(&self) -> Option<usize> {
        match self {
            PointData::F32(v) => v.iter().position(|x| !x.is_finite()),
            _ => None,
        }
    }

    fn write_values(&self, out: &mut impl Write) -> std::io::Result<()> {
        match self {
            PointData::U32(v) => v.iter().try_for_each(|x| writeln!(out, "          {x}")),
            PointData::I32(v) => v.iter().try_for_each(|x| writeln!(out, "          {x}")),
            PointData::F32(v) => v.iter().try_for_each(|x| writeln!(out, "          {x}")),
        }
    }
}

/// Writes a set of points (particles, cell elements) as VTK XML PolyData (`.vtp`), in ASCII:
/// each point is a vertex (so ParaView draws it as is, or as a sphere with the Glyph filter)
/// with a value of every `point_fields` column (`(name, values)`, one value per point).
pub fn write_points(
    path: &Path,
    points: &[[f32; 3]],
    point_fields: &[(&str, PointData)],
) -> Result<(), OutputError> {
    check_finite_points(points)?;
    for (name, values) in point_fields {
        check_name(name)?;
        check_len(name, points.len(), values.len())?;
        if let Some(i) = values.non_finite() {
            return Err(OutputError::InvalidArgument(format!(
                "field `{name}` is not finite at point {i}"
            )));
        }
    }

    crate::write_atomically(path, |out: &mut BufWriter<File>| -> std::io::Result<()> {
        write_poly_header(out, points.len(), points.len(), 0)?;
        write_points_block(out, points)?;
        match point_fields.first() {
            Some((first, _)) => writeln!(out, "      <PointData Scalars=\"{}\">", escape(first))?,
            None => writeln!(out, "      <PointData>")?,
        }
        for (name, values) in point_fields {
            writeln!(
                out,
                "        <DataArray type=\"{}\" Name=\"{}\" format=\"ascii\">",
                values.vtk_type(),
                escape(name)
            )?;
            values.write_values(out)?;
            writeln!(out, "        </DataArray>")?;
        }
        writeln!(out, "      </PointData>")?;
        // One vertex per point: connectivity 0, 1, 2, ...; each vertex ends one further on.
        writeln!(out, "      <Verts>")?;
        for name in ["connectivity", "offsets"] {
            writeln!(
                out,
                "        <DataArray type=\"Int64\" Name=\"{name}\" format=\"ascii\">"
            )?;
            let first = if name == "offsets" { 1 } else { 0 };
            for i in 0..points.len() {
                writeln!(out, "          {}", i + first)?;
            }
            writeln!(out, "        </DataArray>")?;
        }
        writeln!(out, "      </Verts>")?;
        write_poly_footer(out)
    })
}

/// ASCII VTK readers choke on "NaN"/"inf", so the writers refuse them.
fn check_finite_points(points: &[[f32; 3]]) -> Result<(), OutputError> {
    match points.iter().position(|p| !p.iter().all(|c| c.is_finite())) {
        Some(i) => Err(OutputError::InvalidArgument(format!(
            "point {i} is not finite: {:?}",
            points[i]
        ))),
        None => Ok(()),
    }
}

/// The opening of a PolyData file up to its piece, which holds `points`, `verts` vertices and
/// `lines` lines.
fn write_poly_header(
    out: &mut impl Write,
    points: usize,
    verts: usize,
    lines: usize,
) -> std::io::Result<()> {
    writeln!(out, "<?xml version=\"1.0\"?>")?;
    writeln!(
        out,
        "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">"
    )?;
    writeln!(out, "  <PolyData>")?;
    writeln!(
        out,
        "    <Piece NumberOfPoints=\"{points}\" NumberOfVerts=\"{verts}\" NumberOfLines=\"{lines}\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">"
    )
}

fn write_points_block(out: &mut impl Write, points: &[[f32; 3]]) -> std::io::Result<()> {
    writeln!(out, "      <Points>")?;
    writeln!(
        out,
        "        <DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">"
    )?;
    for p in points {
        writeln!(out, "          {} {} {}", p[0], p[1], p[2])?;
    }
    writeln!(out, "        </DataArray>")?;
    writeln!(out, "      </Points>")
}

fn write_poly_footer(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "    </Piece>")?;
    writeln!(out, "  </PolyData>")?;
    writeln!(out, "</VTKFile>")
}

fn check_name(name: &str) -> Result<(), OutputError> {
    if name.trim().is_empty() {
        return Err(OutputError::InvalidArgument(
            "field names must not be empty".to_string(),
        ));
    }
    Ok(())
}

/// Escapes a string for use inside a double-quoted XML attribute.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits a .vti file into its XML header (closed so it parses) and the raw
    /// bytes that follow the `_` marker.
    fn split_appended(bytes: &[u8]) -> (String, &[u8]) {
        let marker = b"<AppendedData encoding=\"raw\">";
        let start = bytes
            .windows(marker.len())
            .position(|w| w == marker)
            .expect("no AppendedData")
            + marker.len();
        let underscore = start + bytes[start..].iter().position(|&b| b == b'_').unwrap();
        let mut xml = String::from_utf8(bytes[..start].to_vec()).unwrap();
        xml.push_str("</AppendedData></VTKFile>");
        (xml, &bytes[underscore + 1..])
    }

    /// The Float32 values of the appended DataArray `node` in `raw` (the bytes after `_`),
    /// checking its byte count is that of `n` values.
    fn appended_values(node: &roxmltree::Node, raw: &[u8], n: usize) -> Vec<f32> {
        assert_eq!(node.attribute("type"), Some("Float32"));
        assert_eq!(node.attribute("format"), Some("appended"));
        let offset: usize = node.attribute("offset").unwrap().parse().unwrap();
        let count = u64::from_le_bytes(raw[offset..offset + 8].try_into().unwrap());
        assert_eq!(count as usize, n * 4);
        raw[offset + 8..offset + 8 + n * 4]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn image_data_structure_and_raw_values_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("grid.vti");
        let dims = [3, 2, 4];
        let n = 3 * 2 * 4;
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.1 - 1.0).collect();
        let b: Vec<f32> = (0..n).map(|i| (i as f32).sin() * 1e-7).collect();
        write_image_data(
            &path,
            dims,
            [0.5, 0.25, 2.0],
            [1.0, -2.0, 0.0],
            &[("oxygen", &a), ("vegf", &b)],
        )
        .unwrap();

        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.ends_with(b"</AppendedData>\n</VTKFile>\n"));
        let (xml, raw) = split_appended(&bytes);
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let root = doc.root_element();
        assert_eq!(root.attribute("type"), Some("ImageData"));
        assert_eq!(root.attribute("header_type"), Some("UInt64"));
        assert_eq!(root.attribute("byte_order"), Some("LittleEndian"));
        let image = root
            .children()
            .find(|n| n.has_tag_name("ImageData"))
            .unwrap();
        assert_eq!(image.attribute("WholeExtent"), Some("0 2 0 1 0 3"));
        assert_eq!(image.attribute("Spacing"), Some("0.5 0.25 2"));
        assert_eq!(image.attribute("Origin"), Some("1 -2 0"));
        let appended = root
            .children()
            .find(|n| n.has_tag_name("AppendedData"))
            .unwrap();
        assert_eq!(appended.attribute("encoding"), Some("raw"));

        let arrays: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("DataArray"))
            .collect();
        assert_eq!(arrays.len(), 2);
        for (node, expected) in arrays.iter().zip([&a, &b]) {
            assert_eq!(node.parent().unwrap().tag_name().name(), "PointData");
            assert_eq!(&appended_values(node, raw, n), expected);
        }
        assert_eq!(arrays[0].attribute("Name"), Some("oxygen"));
        assert_eq!(arrays[1].attribute("Name"), Some("vegf"));
    }

    #[test]
    fn image_data_rejects_bad_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.vti");
        let short = vec![0.0f32; 5];
        let err =
            write_image_data(&path, [2, 3, 1], [1.0; 3], [0.0; 3], &[("c", &short)]).unwrap_err();
        match err {
            OutputError::LengthMismatch {
                field,
                expected,
                actual,
            } => {
                assert_eq!((field.as_str(), expected, actual), ("c", 6, 5));
            }
            other => panic!("unexpected error {other}"),
        }
        assert!(!path.exists(), "nothing should be written on bad input");

        let six = vec![0.0f32; 6];
        assert!(matches!(
            write_image_data(&path, [2, 3, 0], [1.0; 3], [0.0; 3], &[]),
            Err(OutputError::InvalidArgument(_))
        ));
        assert!(matches!(
            write_image_data(&path, [2, 3, 1], [1.0, 0.0, 1.0], [0.0; 3], &[("c", &six)]),
            Err(OutputError::InvalidArgument(_))
        ));
        assert!(matches!(
            write_image_data(&path, [2, 3, 1], [1.0; 3], [0.0; 3], &[("", &six)]),
            Err(OutputError::InvalidArgument(_))
        ));
    }

    #[test]
    fn rectilinear_grid_structure_coordinates_and_raw_values_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fluid.vtr");
        let (x, y, z) = ([0.0, 0.5, 1.0], [0.0, 2.0], [0.0, 0.1, 0.4, 1.0]);
        let n = 3 * 2 * 4;
        let u: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 2.0).collect();
        let w: Vec<f32> = (0..n).map(|i| (i as f32).cos() * 1e-6).collect();
        write_rectilinear_grid(&path, [&x, &y, &z], &[("u", &u), ("w", &w)]).unwrap();

        let bytes = std::fs::read(&path).unwrap();
        let trailer = b"\n  </AppendedData>\n</VTKFile>\n";
        assert!(bytes.ends_with(trailer));
        let (xml, raw) = split_appended(&bytes);
        // The appended block holds exactly two count-prefixed arrays of n Float32.
        assert_eq!(raw.len(), 2 * (8 + n * 4) + trailer.len());
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let root = doc.root_element();
        assert_eq!(root.attribute("type"), Some("RectilinearGrid"));
        assert_eq!(root.attribute("header_type"), Some("UInt64"));
        let grid = root
            .children()
            .find(|n| n.has_tag_name("RectilinearGrid"))
            .unwrap();
        assert_eq!(grid.attribute("WholeExtent"), Some("0 2 0 1 0 3"));
        let piece = grid.children().find(|n| n.has_tag_name("Piece")).unwrap();
        assert_eq!(piece.attribute("Extent"), Some("0 2 0 1 0 3"));

        let coordinates: Vec<Vec<f64>> = doc
            .descendants()
            .filter(|n| n.has_tag_name("DataArray"))
            .filter(|n| n.parent().unwrap().has_tag_name("Coordinates"))
            .map(|n| {
                assert_eq!(n.attribute("type"), Some("Float64"));
                let text = n.text().unwrap();
                text.split_whitespace()
                    .map(|v| v.parse().unwrap())
                    .collect()
            })
            .collect();
        assert_eq!(coordinates, [x.to_vec(), y.to_vec(), z.to_vec()]);

        let arrays: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("DataArray"))
            .filter(|n| n.parent().unwrap().has_tag_name("PointData"))
            .collect();
        assert_eq!(arrays.len(), 2);
        for (node, (name, expected)) in arrays.iter().zip([("u", &u), ("w", &w)]) {
            assert_eq!(node.attribute("Name"), Some(name));
            assert_eq!(&appended_values(node, raw, n), expected);
        }
    }

    #[test]
    fn rectilinear_grid_rejects_bad_coordinates_and_lengths() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.vtr");
        let (x, y) = ([0.0, 1.0], [0.0]);
        let two = [0.0f32; 2];
        for z in [&[0.0, 0.0][..], &[0.5, 0.1], &[0.0, f64::NAN], &[]] {
            let e = write_rectilinear_grid(&path, [&x, &y, z], &[]).unwrap_err();
            assert!(matches!(e, OutputError::InvalidArgument(_)), "{z:?}: {e}");
        }
        let e = write_rectilinear_grid(&path, [&x, &y, &[0.0, 1.0]], &[("u", &two)]).unwrap_err();
        assert!(matches!(
            e,
            OutputError::LengthMismatch {
                expected: 4,
                actual: 2,
                ..
            }
        ));
        assert!(!path.exists(), "nothing should be written on bad input");
    }

    #[test]
    fn io_error_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing_dir").join("grid.vti");
        let err = write_image_data(&path, [1, 1, 1], [1.0; 3], [0.0; 3], &[]).unwrap_err();
        assert!(matches!(err, OutputError::Io { .. }));
        assert!(err.to_string().contains("missing_dir"));
    }

    #[test]
    fn polylines_structure() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sprouts.vtp");
        let points = [
            [0.0, 0.0, 0.0],
            [1.0, 0.5, 0.0],
            [2.0, 1.0, 0.25],
            [0.0, 1.0, 0.0],
        ];
        let segments = [[0, 1], [1, 2], [0, 3]];
        let sprout = [7u32, 7, 8];
        let step = [10u32, 11, 12];
        write_polylines(
            &path,
            &points,
            &segments,
            &[("sprout", &sprout), ("step", &step)],
        )
        .unwrap();

        let text = std::fs::read_to_string(&path).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert_eq!(doc.root_element().attribute("type"), Some("PolyData"));
        let piece = doc.descendants().find(|n| n.has_tag_name("Piece")).unwrap();
        assert_eq!(piece.attribute("NumberOfPoints"), Some("4"));
        assert_eq!(piece.attribute("NumberOfLines"), Some("3"));

        let numbers = |parent: &str, name: Option<&str>| -> Vec<f64> {
            let node = doc
                .descendants()
                .find(|n| {
                    n.has_tag_name("DataArray")
                        && n.parent().unwrap().has_tag_name(parent)
                        && (name.is_none() || n.attribute("Name") == name)
                })
                .unwrap();
            assert_eq!(node.attribute("format"), Some("ascii"));
            node.text()
                .unwrap_or("")
                .split_whitespace()
                .map(|s| s.parse().unwrap())
                .collect()
        };
        let flat: Vec<f64> = points.iter().flatten().map(|&c| c as f64).collect();
        assert_eq!(numbers("Points", None), flat);
        assert_eq!(
            numbers("Lines", Some("connectivity")),
            vec![0.0, 1.0, 1.0, 2.0, 0.0, 3.0]
        );
        assert_eq!(numbers("Lines", Some("offsets")), vec![2.0, 4.0, 6.0]);
        assert_eq!(numbers("CellData", Some("sprout")), vec![7.0, 7.0, 8.0]);
        assert_eq!(numbers("CellData", Some("step")), vec![10.0, 11.0, 12.0]);
    }

    #[test]
    fn polylines_reject_bad_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.vtp");
        let points = [[0.0; 3], [1.0; 3]];
        assert!(matches!(
            write_polylines(&path, &points, &[[0, 2]], &[]),
            Err(OutputError::InvalidArgument(_))
        ));
        let err = write_polylines(&path, &points, &[[0, 1]], &[("sprout", &[1, 2])]).unwrap_err();
        assert!(matches!(
            err,
            OutputError::LengthMismatch {
                expected: 1,
                actual: 2,
                ..
            }
        ));
        assert!(err.to_string().contains("sprout"));
        assert!(matches!(
            write_polylines(&path, &[[f32::NAN, 0.0, 0.0]], &[], &[]),
            Err(OutputError::InvalidArgument(_))
        ));
        assert!(!path.exists());
    }

    #[test]
    fn points_with_typed_point_data_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("elements.vtp");
        let points = [[0.5, 1.0, 0.0], [1.25, -2.0, 3.5], [0.0, 0.0, 1e-3]];
        let cell = [0u32, 0, 7];
        let kind = [1i32, -1, 0];
        let notch = [0.25f32, 1.5e-6, 3.0];
        write_points(
            &path,
            &points,
            &[
                ("cell", PointData::U32(&cell)),
                ("type", PointData::I32(&kind)),
                ("notch", PointData::F32(&notch)),
            ],
        )
        .unwrap();

        let text = std::fs::read_to_string(&path).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert_eq!(doc.root_element().attribute("type"), Some("PolyData"));
        let piece = doc.descendants().find(|n| n.has_tag_name("Piece")).unwrap();
        assert_eq!(piece.attribute("NumberOfPoints"), Some("3"));
        assert_eq!(piece.attribute("NumberOfVerts"), Some("3"));
        assert_eq!(piece.attribute("NumberOfLines"), Some("0"));
        let array = |parent: &str, name: Option<&str>| {
            doc.descendants()
                .find(|n| {
                    n.has_tag_name("DataArray")
                        && n.parent().unwrap().has_tag_name(parent)
                        && (name.is_none() || n.attribute("Name") == name)
                })
                .unwrap()
        };
        let values = |parent: &str, name: Option<&str>| -> Vec<String> {
            let node = array(parent, name);
            assert_eq!(node.attribute("format"), Some("ascii"));
            node.text()
                .unwrap_or("")
                .split_whitespace()
                .map(String::from)
                .collect()
        };
        let xyz: Vec<f32> = values("Points", None)
            .iter()
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(xyz, points.iter().flatten().copied().collect::<Vec<_>>());
        assert_eq!(
            array("PointData", Some("cell")).attribute("type"),
            Some("UInt32")
        );
        assert_eq!(
            array("PointData", Some("type")).attribute("type"),
            Some("Int32")
        );
        assert_eq!(
            array("PointData", Some("notch")).attribute("type"),
            Some("Float32")
        );
        assert_eq!(values("PointData", Some("cell")), ["0", "0", "7"]);
        assert_eq!(values("PointData", Some("type")), ["1", "-1", "0"]);
        let notch_back: Vec<f32> = values("PointData", Some("notch"))
            .iter()
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(notch_back, notch);
        let scalars = doc.descendants().find(|n| n.has_tag_name("PointData"));
        assert_eq!(scalars.unwrap().attribute("Scalars"), Some("cell"));
        assert_eq!(values("Verts", Some("connectivity")), ["0", "1", "2"]);
        assert_eq!(values("Verts", Some("offsets")), ["1", "2", "3"]);
    }

    #[test]
    fn points_reject_bad_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.vtp");
        let points = [[0.0; 3], [1.0; 3]];
        let err = write_points(&path, &points, &[("cell", PointData::U32(&[1]))]).unwrap_err();
        assert!(err.to_string().contains("cell"), "{err}");
        let err =
            write_points(&path, &points, &[("d", PointData::F32(&[0.0, f32::NAN]))]).unwrap_err();
        assert!(
            err.to_string().contains("`d`") && err.to_string().contains("point 1"),
            "{err}"
        );
        assert!(write_points(&path, &[[0.0, f32::INFINITY, 0.0]], &[]).is_err());
        assert!(write_points(&path, &points, &[(" ", PointData::I32(&[0, 1]))]).is_err());
        assert!(!path.exists());
        // No points is a valid, empty file.
        write_points(&path, &[], &[("cell", PointData::U32(&[]))]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(roxmltree::Document::parse(&text).is_ok());
    }

    #[test]
    fn names_are_escaped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("esc.vtp");
        write_polylines(&path, &[[0.0; 3]], &[[0, 0]], &[("a<\"b\"&c>", &[1])]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert!(doc
            .descendants()
            .any(|n| n.attribute("Name") == Some("a<\"b\"&c>")));
    }
}
