//!fragment
// The centre of a cell's elements, for shaders that declare `pos` (array<vec4<f32>>) and
// include epidermis/gene_common.wgsl: per periodic axis the first element's coordinate plus
// the mean of the minimum-image offsets from it, wrapped into the box; z the plain mean.
// CPU twin: genes.rs, cell_centre (same operations in the same order).

fn cell_centre(first: u32, n: u32, lx: f32, ly: f32) -> vec3<f32> {
    if n == 0u {
        return vec3<f32>(0.0);
    }
    let p0 = pos[first];
    var s = vec3<f32>(0.0);
    for (var k = 0u; k < n; k++) {
        let e = pos[first + k];
        s.x += min_image(e.x - p0.x, lx);
        s.y += min_image(e.y - p0.y, ly);
        s.z += e.z;
    }
    let m = f32(n);
    return vec3<f32>(wrap_into(p0.x + s.x / m, lx), wrap_into(p0.y + s.y / m, ly), s.z / m);
}
