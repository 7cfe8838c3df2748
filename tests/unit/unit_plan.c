/* The gradient planner's choice (plan.c) on a device backend, which this
   test fakes: the CPU backend's operations with a device memory of a size
   the test sets.  Where full storage fits in device memory it is chosen;
   where only its store in host memory would fit, the host link makes it
   slower than the boundary method's band in device memory (3 times on an
   H200), and the boundary method must be chosen; likewise under
   -wavefield_storage host.  On the CPU backend mapping the store's fresh
   memory counts: a single gradient takes the boundary method, and an
   inversion, whose store serves every evaluation of every band, full
   storage; so do 12 shots on one rank.  Checkpointing, named on a device,
   keeps its ring on the device, and its snapshots there too where they fit
   (no copy then crosses the host link), else in host memory.  On a
   device, compressed steps lie in device memory where they fit (in host
   memory under -wavefield_storage host), steps on disk in the file
   (a device's fields and buffers on the device, page-locked buffers on the
   host), and checkpointing's snapshots on disk where asked.  The elastic
   equation's single gradient takes the boundary method where every
   parameter's is wanted and full storage for dJ/dvp alone, whose store
   keeps a fifth of the floats.  Checkpointing's auto shape on the CPU
   keeps a ring of a fraction of the steps, as mapping a ring of every step
   costs what full storage's store does, more than running a few steps
   again; on a device, whose memory costs nothing more on first use, its
   ring takes the whole run. */
#include "equations/acoustic/acoustic.h"
#include "setup/plan.h"
#include "setup/setup.h"
#include "grid/timeaxis.h"

static size_t device_free; /* the fake device's free memory, bytes */

static PetscErrorCode FakeFreeMemory(size_t *bytes)
{
  *bytes = device_free;
  return 0;
}

/* The planner's choice for a 2D gradient run of equation eq on these
   kernels (k), with these extra options, the first nimage parameters'
   gradients wanted (0: all). */
static PetscErrorCode ChooseFor(const Equation *eq, const EquationKernels *k, const char *extra, PetscInt nimage, GradientPlan *plan)
{
  Options   o;
  Layout    l;
  ModelInfo m;
  Geometry  geo;
  Grid      g;
  TimeAxis  t;
  Backend   b;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, "-mode gradient -vp 2000 -nz 200 -nx 300 -dx 10 -nt 1000 -dt 0.002 -nshots 1 -progress_interval 0"));
  PetscCall(PetscOptionsInsertString(NULL, extra));
  PetscCall(OptionsParse(PETSC_COMM_WORLD, &o)); /* no checks: the planner needs no observed data */
  PetscCall(LayoutCreate(PETSC_COMM_WORLD, 1, &l));
  PetscCall(ModelDescribe(PETSC_COMM_WORLD, &o, &m));
  PetscCall(SurveyRead(PETSC_COMM_WORLD, &o, &m, NULL, &geo)); /* a regular survey */
  PetscCall(GridCreate(l.group, m.dim, m.n, m.d, o.order, o.pml, o.procs, &g));
  PetscCall(TimeAxisSetUp(&g, eq->stable_step(&g, 2000), o.nt, o.dt, o.cfl, &t));
  /* as BackendSetUp makes it, from these operations */
  b = (Backend){.eq = eq, .ops = k->ops, .memory = k->backend};
  PetscCall(GradientPlanChoose(&o, &l, &b, &m, &geo, &g, &t, 2000, nimage, plan));
  PetscCall(GridDestroy(&g));
  PetscCall(GeometryDestroy(&geo));
  PetscCall(LayoutDestroy(&l));
  PetscFunctionReturn(0);
}

static PetscErrorCode Choose(const KernelOps *ops, const char *extra, GradientPlan *plan) { return ChooseFor(&EquationAcoustic, &(EquationKernels){.ops = ops, .backend = ops->backend}, extra, 0, plan); }

static PetscErrorCode Expect(const char *what, const GradientPlan *plan, GradientMethod want, PetscInt *failed)
{
  PetscFunctionBeginUser;
  if (plan->method == want) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok   %s: %s\n", what, GradientMethods[want]));
  else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: chose %s, expected %s\n", what, GradientMethods[plan->method], GradientMethods[want]));
    (*failed)++;
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  KernelOps    device        = KernelOpsCPU;
  BackendOps   device_memory = *KernelOpsCPU.backend;
  GradientPlan plan;
  PetscInt     failed = 0;
  double       store;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  device.backend                   = &device_memory;
  device.live_map                  = NULL; /* as the CUDA kernels: no live map, whose bytes lie on the host */
  device_memory.name               = "fake device";
  device_memory.device_free_memory = FakeFreeMemory;
  device_memory.first_use[0] = device_memory.first_use[1] = 0; /* a device maps its memory when it is allocated */
  device_memory.mem_reserve  = NULL;

  device_free = (size_t)1 << 40;
  PetscCall(Choose(&device, "", &plan));
  PetscCall(Expect("device memory for everything", &plan, GRADIENT_FULL, &failed));
  PetscCheck(plan.bytes[0] == 0 && plan.bytes[1] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "full storage placed %g bytes on the host and %g on the device, expected all on the device",
             plan.bytes[0], plan.bytes[1]);
  store = plan.bytes[1];

  /* a third of full storage's need: the boundary method's band fits, full storage's store only on the host */
  device_free = (size_t)(store / 3);
  PetscCall(Choose(&device, "", &plan));
  PetscCall(Expect("full storage's store fits in host memory only", &plan, GRADIENT_BOUNDARY, &failed));
  PetscCheck(plan.bytes[0] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the boundary method placed %g bytes on the host, expected none", plan.bytes[0]);

  device_free = (size_t)1 << 40;
  PetscCall(Choose(&device, "-wavefield_storage host", &plan));
  PetscCall(Expect("-wavefield_storage host", &plan, GRADIENT_BOUNDARY, &failed));

  PetscCall(Choose(&device, "-wavefield_storage host -gradient_method full", &plan));
  PetscCall(Expect("-gradient_method full named", &plan, GRADIENT_FULL, &failed));

  /* checkpointing on a device: with -wavefield_storage host the snapshots in host memory, the ring and the replay's state on the device */
  PetscCall(Choose(&device, "-gradient_method checkpoint -checkpoints 5 -checkpoint_window 10 -wavefield_storage host", &plan));
  PetscCall(Expect("-gradient_method checkpoint on a device, snapshots in host memory", &plan, GRADIENT_CHECKPOINT, &failed));
  PetscCheck(plan.snapshots == 5 && plan.window == 10 && plan.nsteps == 11 && plan.bytes[0] > 0 && plan.bytes[1] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "checkpointing on a device: %" PetscInt_FMT " snapshots, windows of %" PetscInt_FMT ", a ring of %" PetscInt_FMT " steps, %g bytes on the host and %g on the device; expected 5, 10, 11 and both nonzero",
             plan.snapshots, plan.window, plan.nsteps, plan.bytes[0], plan.bytes[1]);
  /* where they fit, the snapshots in device memory: no copy crosses the host link */
  PetscCall(Choose(&device, "-gradient_method checkpoint -checkpoints 5 -checkpoint_window 10", &plan));
  PetscCall(Expect("-gradient_method checkpoint on a device, snapshots in device memory", &plan, GRADIENT_CHECKPOINT, &failed));
  PetscCheck(plan.tier.where == STORAGE_DEVICE && plan.bytes[0] == 0 && plan.bytes[1] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "checkpointing on a roomy device: snapshots kept by %s, %g bytes on the host and %g on the device; expected device memory alone", WavefieldStorages[plan.tier.where],
             plan.bytes[0], plan.bytes[1]);
  PetscCall(Choose(&device, "-gradient_method checkpoint -checkpoints 5 -checkpoint_window 10 -wavefield_storage disk -wavefield_dir .", &plan));
  PetscCall(Expect("-gradient_method checkpoint on a device, snapshots on disk", &plan, GRADIENT_CHECKPOINT, &failed));
  PetscCheck(plan.tier.where == STORAGE_DISK, PETSC_COMM_SELF, PETSC_ERR_PLIB, "checkpointing on a device with -wavefield_storage disk: its snapshots not on disk");

  /* compression on a device: the steps encoded (8-bit blocks: 0.27 of the floats) in device memory where they fit, in host memory under -wavefield_storage host
     (the device keeping its fields and buffers) */
  PetscCall(Choose(&device, "-gradient_method full -wavefield_compression int8", &plan));
  PetscCall(Expect("-wavefield_compression int8 on a device", &plan, GRADIENT_FULL, &failed));
  PetscCheck(plan.tier.codec == CODEC_INT8 && plan.bytes[0] == 0 && plan.bytes[1] > 0.2 * store && plan.bytes[1] < 0.35 * store, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "full storage as 8-bit blocks on a roomy device placed %g bytes on the host and %g on the device, expected none and about 0.27 of %g", plan.bytes[0], plan.bytes[1],
             store);
  PetscCall(Choose(&device, "-gradient_method full -wavefield_compression int8 -wavefield_storage host", &plan));
  PetscCall(Expect("-wavefield_compression int8 -wavefield_storage host on a device", &plan, GRADIENT_FULL, &failed));
  PetscCheck(plan.tier.codec == CODEC_INT8 && plan.bytes[0] > 0.2 * store && plan.bytes[0] < 0.35 * store && plan.bytes[1] < 0.1 * store, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "full storage as 8-bit blocks in host memory from a device placed %g bytes on the host and %g on the device, expected about 0.27 and under 0.1 of %g", plan.bytes[0],
             plan.bytes[1], store);
  PetscCall(Choose(&device, "-gradient_method full -wavefield_storage disk -wavefield_dir .", &plan));
  PetscCall(Expect("-wavefield_storage disk on a device", &plan, GRADIENT_FULL, &failed));
  PetscCheck(plan.tier.where == STORAGE_DISK && plan.bytes[0] < 0.05 * store && plan.bytes[1] < 0.1 * store, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "full storage on disk from a device placed %g bytes on the host and %g on the device, expected its buffers only (of %g)", plan.bytes[0], plan.bytes[1], store);

  PetscCall(Choose(&KernelOpsCPU, "", &plan));
  PetscCall(Expect("CPU backend, one gradient", &plan, GRADIENT_BOUNDARY, &failed));
  PetscCall(Choose(&KernelOpsCPU, "-mode invert", &plan));
  PetscCall(Expect("CPU backend, an inversion", &plan, GRADIENT_FULL, &failed));
  PetscCall(Choose(&KernelOpsCPU, "-nshots 12", &plan));
  PetscCall(Expect("CPU backend, 12 shots", &plan, GRADIENT_FULL, &failed));
  /* 2 evaluations of one shot map the store as a single gradient nearly does; in each of 6 bands, 12 uses as 12 shots */
  PetscCall(Choose(&KernelOpsCPU, "-mode invert -tao_max_it 1", &plan));
  PetscCall(Expect("CPU backend, an inversion of 1 iteration", &plan, GRADIENT_BOUNDARY, &failed));
  PetscCall(Choose(&KernelOpsCPU, "-mode invert -tao_max_it 1 -bands 3,4,5,6,7,8", &plan));
  PetscCall(Expect("CPU backend, an inversion of 1 iteration in each of 6 bands", &plan, GRADIENT_FULL, &failed));

  /* full storage on the CPU keeps the chunks the waves reach and maps their pages alone (ReachShare in plan.c), and both methods' adjoints
     leave the parts the waves have not reached: where they reach a small part of the model over the run (2D 2048^2 x 500 steps: 1.5%
     measured), the two measured level (1.43 and 1.36 forward processes, 2026-12-07) and one gradient takes the boundary method, whose
     store is a hundredth of full storage's; full storage's expected time falls with the reach (1024^2, 500 steps against 2500, which the
     waves fill) */
  PetscCall(Choose(&KernelOpsCPU, "-nz 2048 -nx 2048 -nt 500", &plan));
  PetscCall(Expect("CPU backend, one gradient, the waves reaching 2% of the model", &plan, GRADIENT_BOUNDARY, &failed));
  {
    GradientPlan fill;
    PetscCall(Choose(&KernelOpsCPU, "-nz 1024 -nx 1024 -gradient_method full -nt 500", &plan));
    PetscCall(Choose(&KernelOpsCPU, "-nz 1024 -nx 1024 -gradient_method full -nt 2500", &fill));
    if (!(fill.expected - plan.expected > 0.5)) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL full storage on the CPU: expected %.2f forward runs where the waves reach little, %.2f where they fill the model; expected the first lower by at least 0.5\n",
                            plan.expected, fill.expected));
      failed++;
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok   full storage on the CPU: %.2f forward runs where the waves reach little, %.2f where they fill the model\n", plan.expected, fill.expected));
  }

  PetscCall(Choose(&KernelOpsCPU, "-gradient_method checkpoint", &plan));
  PetscCall(Expect("-gradient_method checkpoint on the CPU", &plan, GRADIENT_CHECKPOINT, &failed));
  if (plan.snapshots < 1 || plan.window >= 250) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL checkpointing on the CPU: %" PetscInt_FMT " snapshots, windows of %" PetscInt_FMT " steps of 1000; expected snapshots and windows under a quarter of the run\n", plan.snapshots, plan.window));
    failed++;
  }
  PetscCall(Choose(&device, "-gradient_method checkpoint", &plan));
  PetscCall(Expect("-gradient_method checkpoint on a roomy device", &plan, GRADIENT_CHECKPOINT, &failed));
  if (plan.window < 1000) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL checkpointing on a roomy device: windows of %" PetscInt_FMT " steps; expected the whole run of 1000\n", plan.window));
    failed++;
  }

  /* the elastic equation on the CPU: full storage keeps what the wanted gradients read (docs/numerics.md, Elastic), 1 float a cell and step
     for dJ/dvp alone against 5 for all three, and the planner counts each float (EquationGradientCost.store): one gradient of every
     parameter takes the boundary method, of vp alone full storage */
  {
    EquationKernels k;
    const char     *elastic = "-physics elastic -vs 1150 -rho 2000";
    PetscCheck(EquationElastic.kernels(BACKEND_CPU, &k), PETSC_COMM_SELF, PETSC_ERR_PLIB, "the elastic equation has no CPU kernels");
    PetscCall(ChooseFor(&EquationElastic, &k, elastic, 0, &plan));
    PetscCall(Expect("elastic, one gradient of vp, vs and rho", &plan, GRADIENT_BOUNDARY, &failed));
    PetscCall(ChooseFor(&EquationElastic, &k, elastic, 1, &plan));
    PetscCall(Expect("elastic, one gradient of vp alone", &plan, GRADIENT_FULL, &failed));
  }

  /* the boundary method runs the forward field back only where the waves reach (FieldSupport): the variable-density equation's expected
     time falls with the share they reach, 2D 2048^2 x 500 steps (about 1.4% of the core) against 12000 (the waves reach the far side in 5000) */
  {
    EquationKernels k;
    GradientPlan    fill;
    const char     *vd = "-physics variable_density -rho 1000 -nz 2048 -nx 2048 -gradient_method boundary -nt ";
    char            opts[256];
    PetscCheck(EquationVariableDensity.kernels(BACKEND_CPU, &k), PETSC_COMM_SELF, PETSC_ERR_PLIB, "the variable-density equation has no CPU kernels");
    PetscCall(PetscSNPrintf(opts, sizeof opts, "%s500", vd));
    PetscCall(ChooseFor(&EquationVariableDensity, &k, opts, 0, &plan));
    PetscCall(PetscSNPrintf(opts, sizeof opts, "%s12000", vd));
    PetscCall(ChooseFor(&EquationVariableDensity, &k, opts, 0, &fill));
    const double run_back = EquationVariableDensity.gradient_cost[0].run_back;
    if (!(fill.expected - plan.expected > 0.3 * run_back)) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL variable density, boundary method: expected %.2f forward runs where the waves reach little, %.2f where they fill the model; expected the first lower by at least %.2f\n",
                            plan.expected, fill.expected, 0.3 * run_back));
      failed++;
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok   variable density, boundary method: %.2f forward runs where the waves reach little, %.2f where they fill the model\n", plan.expected, fill.expected));
  }

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_plan: %s\n", failed ? "FAILED" : "all choices as expected"));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
