"""Whole models written for PyTorch, run unchanged under torchshim (issue 4's "done means"): a ResNet-18
definition (torchvision's architecture, written out here since torchvision is not a dependency), with the same
weights in both libraries; outputs, input and parameter gradients, BatchNorm running statistics, `repr` and
`state_dict` keys must equal PyTorch's; likewise an LSTM language model (the word_language_model example's
RNNModel) and a small nn.Transformer seq2seq model (eval mode: dropout draws differ between the libraries)."""
from harness import Arg
from nn_harness import check_module, check_repr


def _resnet18(T, num_classes=10):
    nn = T.nn

    class BasicBlock(nn.Module):
        expansion = 1

        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = downsample
            self.stride = stride

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    class ResNet(nn.Module):
        def __init__(self, layers=(2, 2, 2, 2)):
            super().__init__()
            self.inplanes = 64
            self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            self.layer1 = self._make_layer(64, layers[0])
            self.layer2 = self._make_layer(128, layers[1], stride=2)
            self.layer3 = self._make_layer(256, layers[2], stride=2)
            self.layer4 = self._make_layer(512, layers[3], stride=2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)

        def _make_layer(self, planes, blocks, stride=1):
            downsample = None
            if stride != 1 or self.inplanes != planes:
                downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes, 1, stride, bias=False),
                                           nn.BatchNorm2d(planes))
            layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
            self.inplanes = planes
            layers += [BasicBlock(planes, planes) for _ in range(1, blocks)]
            return nn.Sequential(*layers)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(T.flatten(self.avgpool(x), 1))

    return ResNet()


def test_resnet18_repr_and_state_dict():
    check_repr(_resnet18)


def test_resnet18_forward_backward():
    # float64 so that the comparison is about semantics, not float32 summation order over 11M parameters;
    # training then eval mode (batch statistics and running-stat updates, then the running stats). 32x32
    # inputs reach layer4 at 2x2: at 1x1 with a batch of 2, BatchNorm normalises two values per channel and
    # the input gradient is ill-conditioned.
    check_module(lambda T: _resnet18(T).double(), [Arg((2, 3, 32, 32), "float64")],
                 modes=("train", "eval"))


def _lstm_lm(T, ntoken=50, ninp=16, nhid=24, nlayers=2):
    """The word_language_model example's RNNModel (LSTM flavour, tied weights off), as PyTorch's examples
    write it."""
    nn = T.nn

    class RNNModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.2)
            self.encoder = nn.Embedding(ntoken, ninp)
            self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=0.2)
            self.decoder = nn.Linear(nhid, ntoken)
            self.nhid, self.nlayers = nhid, nlayers

        def forward(self, input, hidden):
            emb = self.drop(self.encoder(input))
            output, hidden = self.rnn(emb, hidden)
            output = self.drop(output)
            decoded = self.decoder(output).view(-1, ntoken)
            return T.nn.functional.log_softmax(decoded, dim=1), hidden

        def init_hidden(self, bsz):
            weight = next(self.parameters())
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))

    return RNNModel()


def _small_transformer(T, layers=2):
    """nn.Transformer (`layers` encoder + `layers` decoder layers, d_model 16, 4 heads) with an embedding and
    a head."""
    nn = T.nn

    class Seq2Seq(nn.Module):
        def __init__(self, ntoken=30, d_model=16):
            super().__init__()
            self.embed = nn.Embedding(ntoken, d_model)
            self.transformer = nn.Transformer(d_model, nhead=4, num_encoder_layers=layers,
                                              num_decoder_layers=layers, dim_feedforward=32, dropout=0.1,
                                              batch_first=True)
            self.head = nn.Linear(d_model, ntoken)

        def forward(self, src, tgt):
            mask = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
            out = self.transformer(self.embed(src), self.embed(tgt), tgt_mask=mask, tgt_is_causal=True)
            return self.head(out)

    return Seq2Seq()


def test_lstm_language_model_repr_and_state_dict():
    check_repr(_lstm_lm)


def test_lstm_language_model_forward_backward():
    from harness import Idx

    def call(m, tokens):
        out, (h, c) = m(tokens, m.init_hidden(3))
        return out, h, c
    check_module(lambda T: _lstm_lm(T).double(), [Idx((5, 3), 50)], call=call, modes=("eval",),
                 input_grad=False)


def test_small_transformer_repr_and_state_dict():
    check_repr(_small_transformer)


def test_small_transformer_forward_backward():
    from harness import Idx
    check_module(lambda T: _small_transformer(T).double(), [Idx((2, 7), 30), Idx((2, 5), 30)],
                 modes=("eval",), input_grad=False)
