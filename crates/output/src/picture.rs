//! Simple RGB pictures saved as PNG, plus the viridis colour map.

use std::io::Write;
use std::path::Path;

use crate::error::{check_len, OutputError};

/// An 8-bit RGB picture. Pixel `(x, y)` is `pixels[x + width * y]`, with `y = 0`
/// the top row, as in the PNG file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbImage {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<[u8; 3]>,
}

impl RgbImage {
    /// A black picture of the given size.
    ///
    /// Like `vec!`, this aborts if `width * height` pixels cannot be allocated.
    pub fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            pixels: vec![[0; 3]; width.saturating_mul(height)],
        }
    }

    /// Sets pixel `(x, y)`; errors if it lies outside the picture.
    pub fn set(&mut self, x: usize, y: usize, rgb: [u8; 3]) -> Result<(), OutputError> {
        let i = self.index(x, y).ok_or_else(|| {
            OutputError::InvalidArgument(format!(
                "pixel ({x}, {y}) is outside a {}x{} picture",
                self.width, self.height
            ))
        })?;
        self.pixels[i] = rgb;
        Ok(())
    }

    /// Colour of pixel `(x, y)`, or `None` outside the picture.
    pub fn get(&self, x: usize, y: usize) -> Option<[u8; 3]> {
        self.index(x, y).map(|i| self.pixels[i])
    }

    fn index(&self, x: usize, y: usize) -> Option<usize> {
        (x < self.width && y < self.height).then(|| x + self.width * y)
    }

    /// Saves as an 8-bit RGB PNG.
    pub fn save_png(&self, path: &Path) -> Result<(), OutputError> {
        let (w, h) = match (u32::try_from(self.width), u32::try_from(self.height)) {
            (Ok(w), Ok(h)) if w > 0 && h > 0 => (w, h),
            _ => {
                return Err(OutputError::InvalidArgument(format!(
                    "cannot save a {}x{} picture as PNG",
                    self.width, self.height
                )))
            }
        };
        // The fields are public, so check they still agree before encoding.
        check_len("pixels", w as usize * h as usize, self.pixels.len())?;
        // Encoded in memory first, so an encoder error leaves no file behind.
        let png_err = |source| OutputError::Png {
            path: path.to_path_buf(),
            source,
        };
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(png_err)?;
        writer
            .write_image_data(self.pixels.as_flattened())
            .map_err(png_err)?;
        writer.finish().map_err(png_err)?;
        crate::write_atomically(path, |out| out.write_all(&bytes))
    }

    /// Reads an 8-bit RGB PNG file, as [`save_png`](Self::save_png) writes them (to check or
    /// compare pictures); refuses other kinds of PNG.
    pub fn load_png(path: &Path) -> Result<Self, OutputError> {
        let bad =
            |what: String| OutputError::InvalidArgument(format!("{}: {what}", path.display()));
        let file = std::fs::File::open(path).map_err(OutputError::io(path))?;
        let mut reader = png::Decoder::new(std::io::BufReader::new(file))
            .read_info()
            .map_err(|e| bad(e.to_string()))?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| bad("too large".into()))?;
        let mut buf = vec![0; size];
        let info = reader
            .next_frame(&mut buf)
            .map_err(|e| bad(e.to_string()))?;
        if (info.color_type, info.bit_depth) != (png::ColorType::Rgb, png::BitDepth::Eight) {
            return Err(bad(format!(
                "{:?} {:?} pixels, not 8-bit RGB",
                info.bit_depth, info.color_type
            )));
        }
        let pixels = buf[..info.buffer_size()]
            .chunks_exact(3)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        Ok(Self {
            width: info.width as usize,
            height: info.height as usize,
            pixels,
        })
    }
}

/// Viridis at t = 0, 0.1, ..., 1 (matplotlib's values); interpolated linearly in between.
const VIRIDIS: [[u8; 3]; 11] = [
    [0x44, 0x01, 0x54],
    [0x48, 0x24, 0x75],
    [0x41, 0x44, 0x87],
    [0x35, 0x5f, 0x8d],
    [0x2a, 0x78, 0x8e],
    [0x21, 0x91, 0x8c],
    [0x22, 0xa8, 0x84],
    [0x44, 0xbf, 0x70],
    [0x7a, 0xd1, 0x51],
    [0xbd, 0xdf, 0x26],
    [0xfd, 0xe7, 0x25],
];

/// Colour used for NaN (missing) values: mid grey, which viridis never produces.
pub const NAN_COLOR: [u8; 3] = [128, 128, 128];

/// Maps `t` in [0, 1] to the viridis colour map (dark purple to yellow).
/// Values outside are clamped; NaN gives [`NAN_COLOR`].
pub fn colormap_viridis(t: f32) -> [u8; 3] {
    if t.is_nan() {
        return NAN_COLOR;
    }
    let s = t.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f32;
    let i = (s.floor() as usize).min(VIRIDIS.len() - 2);
    blend(VIRIDIS[i], VIRIDIS[i + 1], s - i as f32)
}

/// Mixes two colours: `alpha = 0` gives `a`, `alpha = 1` gives `b` (clamped; NaN gives `a`).
pub fn blend(a: [u8; 3], b: [u8; 3], alpha: f32) -> [u8; 3] {
    let alpha = if alpha.is_nan() {
        0.0
    } else {
        alpha.clamp(0.0, 1.0)
    };
    std::array::from_fn(|k| {
        let v = a[k] as f32 + (b[k] as f32 - a[k] as f32) * alpha;
        v.round() as u8
    })
}

/// Draws a 2-D scalar field through viridis: `lo` maps to dark purple, `hi` to yellow.
///
/// `values[x + width * y]` is the value at column `x`, row `y`; row 0 is drawn at the
/// bottom of the picture so that y points up, as in a plot.
pub fn scalar_image(
    values: &[f32],
    width: usize,
    height: usize,
    lo: f32,
    hi: f32,
) -> Result<RgbImage, OutputError> {
    let n = width.checked_mul(height).ok_or_else(|| {
        OutputError::InvalidArgument(format!("picture size {width}x{height} overflows"))
    })?;
    check_len("values", n, values.len())?;
    if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
        return Err(OutputError::InvalidArgument(format!(
            "colour range must be finite with lo <= hi, got lo={lo}, hi={hi}"
        )));
    }
    let span = hi - lo;
    let mut image = RgbImage::new(width, height);
    for (row, chunk) in values.chunks_exact(width.max(1)).enumerate().take(height) {
        let y = height - 1 - row;
        for (x, &v) in chunk.iter().enumerate() {
            // A flat range (lo == hi) would divide by zero; split it at lo instead.
            let t = if span > 0.0 {
                (v - lo) / span
            } else if v > lo {
                1.0
            } else if v.is_nan() {
                f32::NAN
            } else {
                0.0
            };
            image.pixels[x + width * y] = colormap_viridis(t);
        }
    }
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_and_decode_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pic.png");
        let mut img = RgbImage::new(3, 2);
        img.set(0, 0, [255, 0, 0]).unwrap();
        img.set(2, 1, [0, 10, 200]).unwrap();
        img.set(1, 1, [1, 2, 3]).unwrap();
        img.save_png(&path).unwrap();

        let back = RgbImage::load_png(&path).unwrap();
        assert_eq!(back, img);
        assert_eq!(back.get(2, 1), Some([0, 10, 200]));

        // Other PNGs, and files that are no PNG, are refused naming the file.
        let grey = dir.path().join("grey.png");
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, 1, 1);
        encoder.set_color(png::ColorType::Grayscale);
        encoder
            .write_header()
            .unwrap()
            .write_image_data(&[7])
            .unwrap();
        std::fs::write(&grey, bytes).unwrap();
        let e = RgbImage::load_png(&grey).unwrap_err().to_string();
        assert!(e.contains("grey.png") && e.contains("not 8-bit RGB"), "{e}");
        std::fs::write(&grey, b"not a png").unwrap();
        assert!(RgbImage::load_png(&grey).is_err());
    }

    #[test]
    fn set_get_bounds() {
        let mut img = RgbImage::new(2, 2);
        assert!(img.set(2, 0, [1; 3]).is_err());
        assert!(img.set(0, 2, [1; 3]).is_err());
        assert_eq!(img.get(2, 0), None);
        img.set(1, 0, [9; 3]).unwrap();
        assert_eq!(img.get(1, 0), Some([9; 3]));
        assert_eq!(img.pixels[1], [9; 3]);
    }

    #[test]
    fn save_rejects_inconsistent_or_empty_images() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.png");
        let mut img = RgbImage::new(2, 2);
        img.pixels.pop();
        assert!(matches!(
            img.save_png(&path),
            Err(OutputError::LengthMismatch { .. })
        ));
        assert!(matches!(
            RgbImage::new(0, 4).save_png(&path),
            Err(OutputError::InvalidArgument(_))
        ));
        assert!(!path.exists());
    }

    #[test]
    fn viridis_endpoints_and_clamping() {
        assert_eq!(colormap_viridis(0.0), [68, 1, 84]);
        assert_eq!(colormap_viridis(1.0), [253, 231, 37]);
        assert_eq!(colormap_viridis(-3.0), colormap_viridis(0.0));
        assert_eq!(colormap_viridis(7.0), colormap_viridis(1.0));
        assert_eq!(colormap_viridis(f32::INFINITY), colormap_viridis(1.0));
        assert_eq!(colormap_viridis(0.5), [0x21, 0x91, 0x8c]);
        assert_eq!(colormap_viridis(f32::NAN), NAN_COLOR);
        // Green rises monotonically along viridis.
        let greens: Vec<u8> = (0..=100)
            .map(|i| colormap_viridis(i as f32 / 100.0)[1])
            .collect();
        assert!(greens.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn blend_mixes_linearly() {
        assert_eq!(blend([0, 100, 200], [200, 100, 0], 0.0), [0, 100, 200]);
        assert_eq!(blend([0, 100, 200], [200, 100, 0], 1.0), [200, 100, 0]);
        assert_eq!(blend([0, 100, 200], [200, 100, 0], 0.5), [100, 100, 100]);
        assert_eq!(blend([0; 3], [255; 3], 2.0), [255; 3]);
        assert_eq!(blend([5; 3], [255; 3], f32::NAN), [5; 3]);
    }

    #[test]
    fn scalar_image_puts_row_zero_at_the_bottom() {
        // 2 wide, 3 tall; value increases with row.
        let values = [0.0, 0.0, 0.5, 0.5, 1.0, f32::NAN];
        let img = scalar_image(&values, 2, 3, 0.0, 1.0).unwrap();
        assert_eq!(img.get(0, 2), Some(colormap_viridis(0.0)));
        assert_eq!(img.get(1, 1), Some(colormap_viridis(0.5)));
        assert_eq!(img.get(0, 0), Some(colormap_viridis(1.0)));
        assert_eq!(img.get(1, 0), Some(NAN_COLOR));

        let flat = scalar_image(&[1.0, 2.0, 3.0], 3, 1, 2.0, 2.0).unwrap();
        assert_eq!(
            flat.pixels,
            vec![
                colormap_viridis(0.0),
                colormap_viridis(0.0),
                colormap_viridis(1.0)
            ]
        );
    }

    #[test]
    fn scalar_image_rejects_bad_arguments() {
        assert!(matches!(
            scalar_image(&[0.0; 5], 2, 3, 0.0, 1.0),
            Err(OutputError::LengthMismatch {
                expected: 6,
                actual: 5,
                ..
            })
        ));
        assert!(scalar_image(&[0.0; 6], 2, 3, 1.0, 0.0).is_err());
        assert!(scalar_image(&[0.0; 6], 2, 3, f32::NAN, 1.0).is_err());
        assert!(scalar_image(&[], 0, 3, 0.0, 1.0).unwrap().pixels.is_empty());
    }
}
