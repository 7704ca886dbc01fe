import { clamp } from '../utils/math'

/**
 * Returns the zoom control registered on a map, creating it on first use.
 */
export function getZoomControl (map, options = {}) {
  if (!map._zoomControl) {
    map._zoomControl = new ZoomControl(map, options)
  }
  return map._zoomControl
}

export class ZoomControl {
  constructor (map, { step = 1, minZoom = 0, maxZoom = 20 } = {}) {
    this.map = map
    this.step = step
    this.minZoom = minZoom
    this.maxZoom = maxZoom
  }

  zoomIn () {
    this.map.setZoom(clamp(this.map.getZoom() + this.step, this.minZoom, this.maxZoom))
  }

  zoomOut () {
    this.map.setZoom(clamp(this.map.getZoom() - this.step, this.minZoom, this.maxZoom))
  }
}
