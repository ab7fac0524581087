// jaxdeck check: how a picture's ink stands out from what it is drawn on. Given two screenshots of the
// picture on the slide, as shown (png) and over a probe colour painted behind it (probed: base64 PNGs,
// probe: [r, g, b]), the colour it is drawn on (background), how opaque a pixel must be to count
// (opaque, 0-1), how near what shows through it (reach, pixels) and the WCAG contrast ratio ink should
// reach (ratio). Its own pixels are those that hide the probe (a white line on white is one too, the
// faint fringe anti-aliasing draws around a line is not); its ink, those of them within reach of what
// shows through, seen against the ground. Returns {pixels, clear: how many show through, ink: how
// many are ink, weak: how many of those are under the ratio, median: the ink's median contrast ratio,
// spread: the contrast ratio between its own light and dark pixels (the 90th and 10th percentile of
// their luminance): a badge with a dark ground of its own and white letters on it reads by that}.
async ({png, probed, probe, background, opaque, reach, ratio}) => {
  const pixels = async (data) => {
    const picture = new Image();
    picture.src = 'data:image/png;base64,' + data;
    await picture.decode();
    const canvas = document.createElement('canvas');
    canvas.width = picture.naturalWidth;
    canvas.height = picture.naturalHeight;
    const context = canvas.getContext('2d', {willReadFrequently: true});
    context.drawImage(picture, 0, 0);
    size = [canvas.width, canvas.height];
    return context.getImageData(0, 0, canvas.width, canvas.height).data;
  };
  let size;
  const [shown, over] = [await pixels(png), await pixels(probed)];
  const channel = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const luminance = (r, g, b) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const ground = luminance(...background);
  // a pixel's opacity, from the channel where the probe and the ground differ most: what of it changes
  // with what is behind is what shows through
  const k = [0, 1, 2].reduce((a, b) => Math.abs(probe[b] - background[b]) > Math.abs(probe[a] - background[a]) ? b : a);
  const span = Math.abs(probe[k] - background[k]);
  const width = size[0], height = size[1], count = width * height;
  const solid = new Uint8Array(count);
  for (let p = 0; p < count; p++) solid[p] = 1 - Math.abs(shown[4 * p + k] - over[4 * p + k]) / span >= opaque ? 1 : 0;
  // what shows through, grown by `reach` pixels: the picture's own pixels there are seen against the
  // ground; those deeper inside its opaque parts (a label inside a filled box) against those parts
  const near = new Uint8Array(count), through = new Uint8Array(count);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let any = 0;
      for (let d = -reach; d <= reach && !any; d++) { const xx = x + d; if (xx >= 0 && xx < width && !solid[y * width + xx]) any = 1; }
      through[y * width + x] = any;
    }
  }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let any = 0;
      for (let d = -reach; d <= reach && !any; d++) { const yy = y + d; if (yy >= 0 && yy < height && through[yy * width + x]) any = 1; }
      near[y * width + x] = any;
    }
  }
  const contrasts = [], own = [];
  let clear = 0;
  for (let p = 0; p < count; p++) {
    if (!solid[p]) { clear++; continue; }
    own.push(luminance(shown[4 * p], shown[4 * p + 1], shown[4 * p + 2]));
    if (!near[p]) continue;
    const l = luminance(shown[4 * p], shown[4 * p + 1], shown[4 * p + 2]);
    contrasts.push((Math.max(l, ground) + 0.05) / (Math.min(l, ground) + 0.05));
  }
  contrasts.sort((a, b) => a - b);
  own.sort((a, b) => a - b);
  const spread = own.length ? (own[Math.floor(own.length * 0.9)] + 0.05) / (own[Math.floor(own.length * 0.1)] + 0.05) : 1;
  return {pixels: count, clear, ink: contrasts.length, weak: contrasts.filter(c => c < ratio).length,
          median: contrasts.length ? contrasts[contrasts.length >> 1] : null, spread};
}
