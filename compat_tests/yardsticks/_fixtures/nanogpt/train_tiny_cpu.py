# nanoGPT config for the yardstick tests (ours, not nanoGPT's): a tiny character-level GPT on the synthetic
# shakespeare_char stand-in, on the CPU in float32, that trains for 30 iterations in seconds.
# $ python train.py config/train_tiny_cpu.py --compile=True
# nanoGPT's configurator.py exec()s this file inside train.py's globals, as it does its own config/*.py.

out_dir = 'out-tiny'
eval_interval = 10
eval_iters = 4
log_interval = 1
always_save_checkpoint = True

wandb_log = False

dataset = 'shakespeare_char'
gradient_accumulation_steps = 1
batch_size = 8
block_size = 32

n_layer = 2
n_head = 2
n_embd = 64
dropout = 0.1

learning_rate = 3e-3
max_iters = 30
lr_decay_iters = 30
min_lr = 3e-4
beta2 = 0.99
warmup_iters = 5

device = 'cpu'
dtype = 'float32'
compile = False
