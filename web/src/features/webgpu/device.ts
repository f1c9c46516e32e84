// device.ts — the training worker's WebGPU adapter and device. The adapter is looked for once, when
// the worker starts (the header names it); one device serves every model of the page (the executor
// caches compiled kernels per device); once lost, WebGPU stays off for the page. Small and free of
// the kernels: the worker imports it statically, the backend itself (gpu-backend.ts) on first use.
import { GpuBackendError } from './errors';

const HIGH_PERFORMANCE: GPURequestAdapterOptions = { powerPreference: 'high-performance' };

export class WebGpuDevice {
  adapterName = '';  // vendor, architecture, device, description: what the header shows
  forced = false;    // ?backend= chose
  off = '';          // why the page does not train on WebGPU ('' = it does)
  offCoded: { code?: string; args?: Record<string, string | number> } = {};  // off's code (gpu.*) and args
  private adapter: GPUAdapter | null = null;  // found at start, consumed by the device
  private device: GPUDevice | null = null;

  // onLost: the device is gone (a driver reset, another tab's demands, destroy())
  constructor(private readonly onLost: (message: string) => void) {}

  private get api(): GPU | undefined {
    return (navigator as { gpu?: GPU }).gpu;
  }

  /** ?backend= (or navigator.gpu) asked for `wanted`: is there an adapter? */
  async find(wanted: 'webgpu' | 'wasm' | undefined, forced: boolean): Promise<void> {
    this.forced = forced;
    if (wanted !== 'webgpu') {
      if (forced) this.turnOff('?backend=wasm asks for the CPU build', { code: 'gpu.off_requested', args: {} });
      else this.turnOff('WebGPU is not available in this browser', { code: 'gpu.not_available', args: {} });
      return;
    }
    if (!this.api) {
      this.turnOff('WebGPU is not available in this browser', { code: 'gpu.not_available', args: {} });
      return;
    }
    try {
      this.adapter = await this.api.requestAdapter(HIGH_PERFORMANCE);
    } catch (e) {
      this.turnOff(`WebGPU found no adapter (${e instanceof Error ? e.message : e})`, { code: 'gpu.no_adapter', args: {} });
      return;
    }
    if (!this.adapter) {
      this.turnOff('WebGPU found no GPU adapter', { code: 'gpu.no_adapter', args: {} });
      return;
    }
    const i = this.adapter.info;
    this.adapterName = [i?.vendor, i?.architecture, i?.device, i?.description].filter((x) => x).join(' ') || 'GPU';
    this.turnOff('', {});
  }

  /** Why the page does not train on WebGPU from now on ('' = it does), with its code for the page's wording. */
  turnOff(message: string, coded: { code?: string; args?: Record<string, string | number> }): void {
    this.off = message;
    this.offCoded = message ? coded : {};
  }

  /** The page's device, created on first use with the largest buffers the adapter allows. */
  async get(): Promise<GPUDevice> {
    if (this.device) return this.device;
    const adapter = this.adapter ?? (await this.api?.requestAdapter(HIGH_PERFORMANCE));
    this.adapter = null;  // an adapter gives one device
    if (!adapter) throw new GpuBackendError('unavailable', 'WebGPU found no GPU adapter', 'gpu.no_adapter');
    let device: GPUDevice;
    try {
      const L = adapter.limits;
      device = await adapter.requestDevice({ requiredLimits: { maxBufferSize: L.maxBufferSize, maxStorageBufferBindingSize: L.maxStorageBufferBindingSize } });
    } catch (e) {
      throw new GpuBackendError('unavailable', `WebGPU could not create a device: ${e instanceof Error ? e.message : e}`, 'gpu.no_device');
    }
    this.device = device;
    void device.lost.then((info) => {
      if (this.device === device) this.device = null;
      const message = `the GPU device was lost: ${info.message || info.reason}`;
      this.turnOff(message, { code: 'gpu.device_lost', args: {} });
      this.onLost(message);
    });
    return device;
  }

  /** Test hook (the page's e2e test of the fallback): as if the driver had reset the GPU. */
  lose(): void {
    this.device?.destroy();
  }
}
