/* layer.c: parsing, checking and printing layer specs (see layer.h).
 *
 * The first stop of the pipeline: a user's string becomes a Layer, or a Diag
 * that quotes the spec and names what is wrong with it. Parsing happens in two
 * steps: the spec is split into items and every key=value is read and range-
 * checked into a Parse (so a message names the key as the user typed it, say
 * `stride` rather than stride_h); then the values are laid over the defaults
 * or over a named layer's table row, and the whole layer is checked by the
 * same code as a hand-built one (kernel inside the padded input, tensor sizes).
 * Invariant: a Layer that leaves here with true has passed layer_check, so its
 * out_h and out_w are at least 1 and all its element counts fit in int32.
 */
#include "conv/layer.h"
#include "util/elem.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The named layers (docs/design.md section 11) ------------------------------------- */

typedef struct Named {
  const char *net;   // network: "vgg16", "alexnet", "resnet50", ...
  const char *name;  // layer within it: "conv1_1", "layer1.0.conv2" (torchvision's module names)
  int hw;            // input height and width
  int c, k;          // input and output channels
  int ks;            // kernel height and width
  int stride, pad;
  int groups;        // 1, or c for a depthwise layer
  LayerAct act;      // after the bias (folded batch norm's, for ResNet and MobileNet), and the residual
  bool residual;     // residual=1: the block's shortcut added before act, as import fuses it
} Named;

/* ResNet-18/50 and MobileNet V1/V2 at 224x224 (torchvision's; MobileNet V1
 * with ReLU6 as TensorFlow's), batch norm folded into each convolution's
 * bias. The convolution that a block's residual Add follows, the later of
 * the block's two branches in torchvision's order (`convgen import` fuses
 * the Add into it, src/onnx/onnx.c), takes the shortcut as residual=1 and
 * the ReLU after the Add as its act: a ResNet identity block's last
 * convolution, a downsampling block's downsample (its last convolution then
 * has no activation), MobileNet V2's projection where the shape stays (no
 * activation). docs/conv.md lists them. */

static const Named named[] = {
    {"vgg16", "conv1_1", 224, 3, 64, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv1_2", 224, 64, 64, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv2_1", 112, 64, 128, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv2_2", 112, 128, 128, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv3_1", 56, 128, 256, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv3_2", 56, 256, 256, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv3_3", 56, 256, 256, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv4_1", 28, 256, 512, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv4_2", 28, 512, 512, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv4_3", 28, 512, 512, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv5_1", 14, 512, 512, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv5_2", 14, 512, 512, 3, 1, 1, 1, ACT_RELU, false},
    {"vgg16", "conv5_3", 14, 512, 512, 3, 1, 1, 1, ACT_RELU, false},
    {"alexnet", "conv1", 224, 3, 64, 11, 4, 2, 1, ACT_RELU, false},
    {"alexnet", "conv2", 27, 64, 192, 5, 1, 2, 1, ACT_RELU, false},
    {"alexnet", "conv3", 13, 192, 384, 3, 1, 1, 1, ACT_RELU, false},
    {"alexnet", "conv4", 13, 384, 256, 3, 1, 1, 1, ACT_RELU, false},
    {"alexnet", "conv5", 13, 256, 256, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet18", "conv1", 224, 3, 64, 7, 2, 3, 1, ACT_RELU, false},
    {"resnet18", "layer1.0.conv1", 56, 64, 64, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet18", "layer1.0.conv2", 56, 64, 64, 3, 1, 1, 1, ACT_RELU, true},
    {"resnet18", "layer1.1.conv1", 56, 64, 64, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet18", "layer1.1.conv2", 56, 64, 64, 3, 1, 1, 1, ACT_RELU, true},
    {"resnet18", "layer2.0.conv1", 56, 64, 128, 3, 2, 1, 1, ACT_RELU, false},
    {"resnet18", "layer2.0.conv2", 28, 128, 128, 3, 1, 1, 1, ACT_NONE, false},
    {"resnet18", "layer2.0.downsample", 56, 64, 128, 1, 2, 0, 1, ACT_RELU, true},
    {"resnet18", "layer2.1.conv1", 28, 128, 128, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet18", "layer2.1.conv2", 28, 128, 128, 3, 1, 1, 1, ACT_RELU, true},
    {"resnet18", "layer3.0.conv1", 28, 128, 256, 3, 2, 1, 1, ACT_RELU, false},
    {"resnet18", "layer3.0.conv2", 14, 256, 256, 3, 1, 1, 1, ACT_NONE, false},
    {"resnet18", "layer3.0.downsample", 28, 128, 256, 1, 2, 0, 1, ACT_RELU, true},
    {"resnet18", "layer3.1.conv1", 14, 256, 256, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet18", "layer3.1.conv2", 14, 256, 256, 3, 1, 1, 1, ACT_RELU, true},
    {"resnet18", "layer4.0.conv1", 14, 256, 512, 3, 2, 1, 1, ACT_RELU, false},
    {"resnet18", "layer4.0.conv2", 7, 512, 512, 3, 1, 1, 1, ACT_NONE, false},
    {"resnet18", "layer4.0.downsample", 14, 256, 512, 1, 2, 0, 1, ACT_RELU, true},
    {"resnet18", "layer4.1.conv1", 7, 512, 512, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet18", "layer4.1.conv2", 7, 512, 512, 3, 1, 1, 1, ACT_RELU, true},
    {"resnet50", "conv1", 224, 3, 64, 7, 2, 3, 1, ACT_RELU, false},
    {"resnet50", "layer1.0.conv1", 56, 64, 64, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer1.0.conv2", 56, 64, 64, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer1.0.conv3", 56, 64, 256, 1, 1, 0, 1, ACT_NONE, false},
    {"resnet50", "layer1.0.downsample", 56, 64, 256, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer1.1.conv1", 56, 256, 64, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer1.1.conv2", 56, 64, 64, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer1.1.conv3", 56, 64, 256, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer1.2.conv1", 56, 256, 64, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer1.2.conv2", 56, 64, 64, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer1.2.conv3", 56, 64, 256, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer2.0.conv1", 56, 256, 128, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer2.0.conv2", 56, 128, 128, 3, 2, 1, 1, ACT_RELU, false},
    {"resnet50", "layer2.0.conv3", 28, 128, 512, 1, 1, 0, 1, ACT_NONE, false},
    {"resnet50", "layer2.0.downsample", 56, 256, 512, 1, 2, 0, 1, ACT_RELU, true},
    {"resnet50", "layer2.1.conv1", 28, 512, 128, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer2.1.conv2", 28, 128, 128, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer2.1.conv3", 28, 128, 512, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer2.2.conv1", 28, 512, 128, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer2.2.conv2", 28, 128, 128, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer2.2.conv3", 28, 128, 512, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer2.3.conv1", 28, 512, 128, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer2.3.conv2", 28, 128, 128, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer2.3.conv3", 28, 128, 512, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer3.0.conv1", 28, 512, 256, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer3.0.conv2", 28, 256, 256, 3, 2, 1, 1, ACT_RELU, false},
    {"resnet50", "layer3.0.conv3", 14, 256, 1024, 1, 1, 0, 1, ACT_NONE, false},
    {"resnet50", "layer3.0.downsample", 28, 512, 1024, 1, 2, 0, 1, ACT_RELU, true},
    {"resnet50", "layer3.1.conv1", 14, 1024, 256, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer3.1.conv2", 14, 256, 256, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer3.1.conv3", 14, 256, 1024, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer3.2.conv1", 14, 1024, 256, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer3.2.conv2", 14, 256, 256, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer3.2.conv3", 14, 256, 1024, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer3.3.conv1", 14, 1024, 256, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer3.3.conv2", 14, 256, 256, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer3.3.conv3", 14, 256, 1024, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer3.4.conv1", 14, 1024, 256, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer3.4.conv2", 14, 256, 256, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer3.4.conv3", 14, 256, 1024, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer3.5.conv1", 14, 1024, 256, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer3.5.conv2", 14, 256, 256, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer3.5.conv3", 14, 256, 1024, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer4.0.conv1", 14, 1024, 512, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer4.0.conv2", 14, 512, 512, 3, 2, 1, 1, ACT_RELU, false},
    {"resnet50", "layer4.0.conv3", 7, 512, 2048, 1, 1, 0, 1, ACT_NONE, false},
    {"resnet50", "layer4.0.downsample", 14, 1024, 2048, 1, 2, 0, 1, ACT_RELU, true},
    {"resnet50", "layer4.1.conv1", 7, 2048, 512, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer4.1.conv2", 7, 512, 512, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer4.1.conv3", 7, 512, 2048, 1, 1, 0, 1, ACT_RELU, true},
    {"resnet50", "layer4.2.conv1", 7, 2048, 512, 1, 1, 0, 1, ACT_RELU, false},
    {"resnet50", "layer4.2.conv2", 7, 512, 512, 3, 1, 1, 1, ACT_RELU, false},
    {"resnet50", "layer4.2.conv3", 7, 512, 2048, 1, 1, 0, 1, ACT_RELU, true},
    {"mobilenet_v1", "conv0", 224, 3, 32, 3, 2, 1, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv1_dw", 112, 32, 32, 3, 1, 1, 32, ACT_RELU6, false},
    {"mobilenet_v1", "conv1_pw", 112, 32, 64, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv2_dw", 112, 64, 64, 3, 2, 1, 64, ACT_RELU6, false},
    {"mobilenet_v1", "conv2_pw", 56, 64, 128, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv3_dw", 56, 128, 128, 3, 1, 1, 128, ACT_RELU6, false},
    {"mobilenet_v1", "conv3_pw", 56, 128, 128, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv4_dw", 56, 128, 128, 3, 2, 1, 128, ACT_RELU6, false},
    {"mobilenet_v1", "conv4_pw", 28, 128, 256, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv5_dw", 28, 256, 256, 3, 1, 1, 256, ACT_RELU6, false},
    {"mobilenet_v1", "conv5_pw", 28, 256, 256, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv6_dw", 28, 256, 256, 3, 2, 1, 256, ACT_RELU6, false},
    {"mobilenet_v1", "conv6_pw", 14, 256, 512, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv7_dw", 14, 512, 512, 3, 1, 1, 512, ACT_RELU6, false},
    {"mobilenet_v1", "conv7_pw", 14, 512, 512, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv8_dw", 14, 512, 512, 3, 1, 1, 512, ACT_RELU6, false},
    {"mobilenet_v1", "conv8_pw", 14, 512, 512, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv9_dw", 14, 512, 512, 3, 1, 1, 512, ACT_RELU6, false},
    {"mobilenet_v1", "conv9_pw", 14, 512, 512, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv10_dw", 14, 512, 512, 3, 1, 1, 512, ACT_RELU6, false},
    {"mobilenet_v1", "conv10_pw", 14, 512, 512, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv11_dw", 14, 512, 512, 3, 1, 1, 512, ACT_RELU6, false},
    {"mobilenet_v1", "conv11_pw", 14, 512, 512, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv12_dw", 14, 512, 512, 3, 2, 1, 512, ACT_RELU6, false},
    {"mobilenet_v1", "conv12_pw", 7, 512, 1024, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v1", "conv13_dw", 7, 1024, 1024, 3, 1, 1, 1024, ACT_RELU6, false},
    {"mobilenet_v1", "conv13_pw", 7, 1024, 1024, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.0", 224, 3, 32, 3, 2, 1, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.1.dw", 112, 32, 32, 3, 1, 1, 32, ACT_RELU6, false},
    {"mobilenet_v2", "features.1.project", 112, 32, 16, 1, 1, 0, 1, ACT_NONE, false},
    {"mobilenet_v2", "features.2.expand", 112, 16, 96, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.2.dw", 112, 96, 96, 3, 2, 1, 96, ACT_RELU6, false},
    {"mobilenet_v2", "features.2.project", 56, 96, 24, 1, 1, 0, 1, ACT_NONE, false},
    {"mobilenet_v2", "features.3.expand", 56, 24, 144, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.3.dw", 56, 144, 144, 3, 1, 1, 144, ACT_RELU6, false},
    {"mobilenet_v2", "features.3.project", 56, 144, 24, 1, 1, 0, 1, ACT_NONE, true},
    {"mobilenet_v2", "features.4.expand", 56, 24, 144, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.4.dw", 56, 144, 144, 3, 2, 1, 144, ACT_RELU6, false},
    {"mobilenet_v2", "features.4.project", 28, 144, 32, 1, 1, 0, 1, ACT_NONE, false},
    {"mobilenet_v2", "features.5.expand", 28, 32, 192, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.5.dw", 28, 192, 192, 3, 1, 1, 192, ACT_RELU6, false},
    {"mobilenet_v2", "features.5.project", 28, 192, 32, 1, 1, 0, 1, ACT_NONE, true},
    {"mobilenet_v2", "features.6.expand", 28, 32, 192, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.6.dw", 28, 192, 192, 3, 1, 1, 192, ACT_RELU6, false},
    {"mobilenet_v2", "features.6.project", 28, 192, 32, 1, 1, 0, 1, ACT_NONE, true},
    {"mobilenet_v2", "features.7.expand", 28, 32, 192, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.7.dw", 28, 192, 192, 3, 2, 1, 192, ACT_RELU6, false},
    {"mobilenet_v2", "features.7.project", 14, 192, 64, 1, 1, 0, 1, ACT_NONE, false},
    {"mobilenet_v2", "features.8.expand", 14, 64, 384, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.8.dw", 14, 384, 384, 3, 1, 1, 384, ACT_RELU6, false},
    {"mobilenet_v2", "features.8.project", 14, 384, 64, 1, 1, 0, 1, ACT_NONE, true},
    {"mobilenet_v2", "features.9.expand", 14, 64, 384, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.9.dw", 14, 384, 384, 3, 1, 1, 384, ACT_RELU6, false},
    {"mobilenet_v2", "features.9.project", 14, 384, 64, 1, 1, 0, 1, ACT_NONE, true},
    {"mobilenet_v2", "features.10.expand", 14, 64, 384, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.10.dw", 14, 384, 384, 3, 1, 1, 384, ACT_RELU6, false},
    {"mobilenet_v2", "features.10.project", 14, 384, 64, 1, 1, 0, 1, ACT_NONE, true},
    {"mobilenet_v2", "features.11.expand", 14, 64, 384, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.11.dw", 14, 384, 384, 3, 1, 1, 384, ACT_RELU6, false},
    {"mobilenet_v2", "features.11.project", 14, 384, 96, 1, 1, 0, 1, ACT_NONE, false},
    {"mobilenet_v2", "features.12.expand", 14, 96, 576, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.12.dw", 14, 576, 576, 3, 1, 1, 576, ACT_RELU6, false},
    {"mobilenet_v2", "features.12.project", 14, 576, 96, 1, 1, 0, 1, ACT_NONE, true},
    {"mobilenet_v2", "features.13.expand", 14, 96, 576, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.13.dw", 14, 576, 576, 3, 1, 1, 576, ACT_RELU6, false},
    {"mobilenet_v2", "features.13.project", 14, 576, 96, 1, 1, 0, 1, ACT_NONE, true},
    {"mobilenet_v2", "features.14.expand", 14, 96, 576, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.14.dw", 14, 576, 576, 3, 2, 1, 576, ACT_RELU6, false},
    {"mobilenet_v2", "features.14.project", 7, 576, 160, 1, 1, 0, 1, ACT_NONE, false},
    {"mobilenet_v2", "features.15.expand", 7, 160, 960, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.15.dw", 7, 960, 960, 3, 1, 1, 960, ACT_RELU6, false},
    {"mobilenet_v2", "features.15.project", 7, 960, 160, 1, 1, 0, 1, ACT_NONE, true},
    {"mobilenet_v2", "features.16.expand", 7, 160, 960, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.16.dw", 7, 960, 960, 3, 1, 1, 960, ACT_RELU6, false},
    {"mobilenet_v2", "features.16.project", 7, 960, 160, 1, 1, 0, 1, ACT_NONE, true},
    {"mobilenet_v2", "features.17.expand", 7, 160, 960, 1, 1, 0, 1, ACT_RELU6, false},
    {"mobilenet_v2", "features.17.dw", 7, 960, 960, 3, 1, 1, 960, ACT_RELU6, false},
    {"mobilenet_v2", "features.17.project", 7, 960, 320, 1, 1, 0, 1, ACT_NONE, false},
    {"mobilenet_v2", "features.18", 7, 320, 1280, 1, 1, 0, 1, ACT_RELU6, false},
};
enum { NNAMED = sizeof named / sizeof *named };

static const char *networks[] = {"vgg16", "alexnet", "resnet18", "resnet50", "mobilenet_v1", "mobilenet_v2"};
enum { NNETWORKS = sizeof networks / sizeof *networks };

static bool span_is(const char *s, size_t n, const char *word) {
  return strlen(word) == n && strncmp(s, word, n) == 0;
}

static int find_network(const char *s, size_t n) {
  for (int i = 0; i < NNETWORKS; i++)
    if (span_is(s, n, networks[i])) return i;
  return -1;
}

/* The table row for "net.layer" at s[0..n), or NULL. */
static const Named *find_named(const char *s, size_t n) {
  for (int i = 0; i < NNAMED; i++) {
    size_t ln = strlen(named[i].net);
    if (n > ln && s[ln] == '.' && strncmp(s, named[i].net, ln) == 0 &&
        span_is(s + ln + 1, n - ln - 1, named[i].name))
      return &named[i];
  }
  return NULL;
}

/* The layer of a table row, with its bias and activation, checked. */
static Layer from_named(const Named *nm) {
  Layer l = {.n = 1, .c = nm->c, .h = nm->hw, .w = nm->hw, .k = nm->k, .kh = nm->ks, .kw = nm->ks,
             .stride_h = nm->stride, .stride_w = nm->stride, .pad_h = nm->pad, .pad_w = nm->pad,
             .groups = nm->groups, .bias = true, .act = nm->act, .residual = nm->residual};
  snprintf(l.name, sizeof l.name, "%s.%s", nm->net, nm->name);
  if (!layer_check(&l, NULL)) cg_die("named layer %s is invalid", l.name);
  return l;
}

/* "conv1_1, conv1_2, ..." for net, or "vgg16, alexnet" when net is NULL. */
static void list_names(StrBuf *sb, const char *net) {
  for (int i = 0; !net && i < NNETWORKS; i++) sb_printf(sb, "%s%s", i ? ", " : "", networks[i]);
  bool first = true;
  for (int i = 0; net && i < NNAMED; i++) {
    if (strcmp(named[i].net, net) != 0) continue;
    sb_printf(sb, "%s%s", first ? "" : ", ", named[i].name);
    first = false;
  }
}

/* ---- Keys ------------------------------------------------------------------------ */

typedef enum Key {
  KEY_N, KEY_C, KEY_H, KEY_W, KEY_K, KEY_KH, KEY_KW,
  KEY_STRIDE, KEY_STRIDE_H, KEY_STRIDE_W, KEY_PAD, KEY_PAD_H, KEY_PAD_W,
  KEY_BIAS, KEY_RELU, KEY_ACT, KEY_PAD_TOP, KEY_PAD_LEFT, KEY_PAD_BOTTOM, KEY_PAD_RIGHT, KEY_DILATION,
  KEY_DILATION_H, KEY_DILATION_W, KEY_GROUPS, KEY_RESIDUAL, KEY_PRECISION, KEY_SCALE, NKEYS
} Key;

static const struct {
  const char *name;
  int lo, hi;   // inclusive range of the value
} keys[NKEYS] = {
    [KEY_N] = {"n", 1, LAYER_MAX_DIM},
    [KEY_C] = {"c", 1, LAYER_MAX_DIM},
    [KEY_H] = {"h", 1, LAYER_MAX_DIM},
    [KEY_W] = {"w", 1, LAYER_MAX_DIM},
    [KEY_K] = {"k", 1, LAYER_MAX_DIM},
    [KEY_KH] = {"kh", 1, LAYER_MAX_DIM},
    [KEY_KW] = {"kw", 1, LAYER_MAX_DIM},
    [KEY_STRIDE] = {"stride", 1, LAYER_STRIDE_MAX},
    [KEY_STRIDE_H] = {"stride_h", 1, LAYER_STRIDE_MAX},
    [KEY_STRIDE_W] = {"stride_w", 1, LAYER_STRIDE_MAX},
    [KEY_PAD] = {"pad", 0, LAYER_PAD_MAX},
    [KEY_PAD_H] = {"pad_h", 0, LAYER_PAD_MAX},
    [KEY_PAD_W] = {"pad_w", 0, LAYER_PAD_MAX},
    [KEY_BIAS] = {"bias", 0, 1},
    [KEY_RELU] = {"relu", 0, 1},
    [KEY_ACT] = {"act", 0, 0},   // a name, not a number (parse_act)
    [KEY_PAD_TOP] = {"pad_top", 0, LAYER_PAD_MAX},
    [KEY_PAD_LEFT] = {"pad_left", 0, LAYER_PAD_MAX},
    [KEY_PAD_BOTTOM] = {"pad_bottom", 0, LAYER_PAD_MAX},
    [KEY_PAD_RIGHT] = {"pad_right", 0, LAYER_PAD_MAX},
    [KEY_DILATION] = {"dilation", 1, LAYER_DILATION_MAX},
    [KEY_DILATION_H] = {"dilation_h", 1, LAYER_DILATION_MAX},
    [KEY_DILATION_W] = {"dilation_w", 1, LAYER_DILATION_MAX},
    [KEY_GROUPS] = {"groups", 1, LAYER_MAX_DIM},
    [KEY_RESIDUAL] = {"residual", 0, 1},
    [KEY_PRECISION] = {"precision", 0, 0},   // a name, not a number (parse_precision)
    [KEY_SCALE] = {"scale", 0, 1},
};

static const char KEY_LIST[] = "n, c, h, w, k, kh, kw, stride, stride_h, stride_w, pad, pad_h, pad_w, pad_top, pad_left, "
                               "pad_bottom, pad_right, dilation, dilation_h, dilation_w, groups, bias, relu, act, "
                               "residual, scale, precision";

/* The activations, in LayerAct order, with how many arguments each takes. */
static const struct {
  const char *name;
  int nargs;
} acts[] = {
    [ACT_NONE] = {"none", 0},   [ACT_RELU] = {"relu", 0},       [ACT_RELU6] = {"relu6", 0},
    [ACT_CLIP] = {"clip", 2},   [ACT_LEAKY] = {"leaky", 1},     [ACT_SIGMOID] = {"sigmoid", 0},
    [ACT_HARDSWISH] = {"hardswish", 0}, [ACT_SILU] = {"silu", 0},       [ACT_HARDSIGMOID] = {"hardsigmoid", 2},
};
enum { NACTS = (int)(sizeof acts / sizeof *acts) };
static const char ACT_LIST[] =
    "none, relu, relu6, clip(MIN,MAX), leaky(ALPHA), sigmoid, hardswish, silu, hardsigmoid(ALPHA,BETA)";

static int find_key(const char *s, size_t n) {
  for (int i = 0; i < NKEYS; i++)
    if (span_is(s, n, keys[i].name)) return i;
  return -1;
}

/* The value of key (text: how it was written) outside the key's range? Then
 * an error naming the key and the range. */
static bool range_check(Key key, int64_t v, const char *text, const char *spec, Diag *d) {
  int lo = keys[key].lo, hi = keys[key].hi;
  const char *k = keys[key].name;
  if (v >= lo && v <= hi) return true;
  if (hi == 1) return diag_error(d, "%s must be 0 or 1 (got %s) in layer spec '%s'", k, text, spec);
  if (hi == LAYER_MAX_DIM && v < lo)
    return diag_error(d, "%s must be at least %d (got %s) in layer spec '%s'", k, lo, text, spec);
  if (hi == LAYER_MAX_DIM) return diag_error(d, "%s must be at most %d (got %s) in layer spec '%s'", k, hi, text, spec);
  return diag_error(d, "%s must be between %d and %d (got %s) in layer spec '%s'", k, lo, hi, text, spec);
}

/* ---- Checking a whole layer ---------------------------------------------------------- */

static bool fields_check(const Layer *l, const char *spec, Diag *d) {
  const int vals[NKEYS] = {
      [KEY_N] = l->n, [KEY_C] = l->c, [KEY_H] = l->h, [KEY_W] = l->w, [KEY_K] = l->k,
      [KEY_KH] = l->kh, [KEY_KW] = l->kw, [KEY_STRIDE_H] = l->stride_h, [KEY_STRIDE_W] = l->stride_w,
      [KEY_PAD_H] = l->pad_h, [KEY_PAD_W] = l->pad_w, [KEY_STRIDE] = 1, [KEY_PAD] = 0,
      [KEY_BIAS] = l->bias, [KEY_RELU] = l->act == ACT_RELU, [KEY_PAD_TOP] = l->pad_h, [KEY_PAD_LEFT] = l->pad_w,
      [KEY_PAD_BOTTOM] = layer_pad_bottom(l), [KEY_PAD_RIGHT] = layer_pad_right(l), [KEY_DILATION] = 1,
      [KEY_DILATION_H] = l->dil_h, [KEY_DILATION_W] = l->dil_w, [KEY_GROUPS] = l->groups,
      [KEY_RESIDUAL] = l->residual, [KEY_SCALE] = l->scale};
  for (int i = 0; i < NKEYS; i++) {
    if (i == KEY_ACT || i == KEY_PRECISION) continue;
    char text[16];
    snprintf(text, sizeof text, "%d", vals[i]);
    if (!range_check((Key)i, vals[i], text, spec, d)) return false;
  }
  return true;
}

/* The activation's arguments within their ranges: for what the user typed
 * (parse_act) and for a layer built by hand (check). */
static bool act_args_check(LayerAct act, float a, float b, const char *spec, Diag *d) {
  if (act == ACT_CLIP && !(isfinite(a) && isfinite(b) && fabsf(a) <= LAYER_ACT_MAX && fabsf(b) <= LAYER_ACT_MAX))
    return diag_error(d, "clip's bounds must be numbers within +-%g (got clip(%g,%g)) in layer spec '%s'",
                      LAYER_ACT_MAX, a, b, spec);
  if (act == ACT_CLIP && !(a < b))
    return diag_error(d, "clip(MIN,MAX) needs MIN < MAX (got clip(%g,%g)) in layer spec '%s'", a, b, spec);
  if (act == ACT_LEAKY && !(a > 0 && a < 1))
    return diag_error(d, "leaky(ALPHA) needs 0 < ALPHA < 1 (got leaky(%g)) in layer spec '%s'", a, spec);
  if (act == ACT_HARDSIGMOID && !(isfinite(a) && isfinite(b) && fabsf(a) <= LAYER_ACT_MAX && fabsf(b) <= LAYER_ACT_MAX))
    return diag_error(d, "hardsigmoid(ALPHA,BETA) takes numbers within +-%g (got hardsigmoid(%g,%g)) in layer spec '%s'",
                      LAYER_ACT_MAX, a, b, spec);
  return true;
}

/* The groups divide both channel counts. */
static bool groups_check(const Layer *l, const char *spec, Diag *d) {
  if (l->c % l->groups != 0)
    return diag_error(d, "groups=%d does not divide the input channels c=%d (each group takes c/groups of them) in "
                      "layer spec '%s'", l->groups, l->c, spec);
  if (l->k % l->groups != 0)
    return diag_error(d, "groups=%d does not divide the output channels k=%d (each group makes k/groups of them) in "
                      "layer spec '%s'", l->groups, l->k, spec);
  return true;
}

static bool kernel_check(const Layer *l, const char *spec, Diag *d) {
  int ph = l->h + l->pad_h + layer_pad_bottom(l), pw = l->w + l->pad_w + layer_pad_right(l);
  int eh = (l->kh - 1) * l->dil_h + 1, ew = (l->kw - 1) * l->dil_w + 1;   // the dilated window's extent
  if (l->dil_h > 1 && eh > ph && l->kh <= ph)
    return diag_error(d, "the dilated window's height (kh-1)*dilation_h+1 = %d is larger than the padded input height "
                      "%d (h=%d, kh=%d, dilation_h=%d), so there are no output rows, in layer spec '%s'", eh, ph, l->h,
                      l->kh, l->dil_h, spec);
  if (l->dil_w > 1 && ew > pw && l->kw <= pw)
    return diag_error(d, "the dilated window's width (kw-1)*dilation_w+1 = %d is larger than the padded input width "
                      "%d (w=%d, kw=%d, dilation_w=%d), so there are no output columns, in layer spec '%s'", ew, pw,
                      l->w, l->kw, l->dil_w, spec);
  char padh[48], padw[48];
  if (l->pad_dh) snprintf(padh, sizeof padh, "pad_top=%d, pad_bottom=%d", l->pad_h, layer_pad_bottom(l));
  else snprintf(padh, sizeof padh, "pad_h=%d", l->pad_h);
  if (l->pad_dw) snprintf(padw, sizeof padw, "pad_left=%d, pad_right=%d", l->pad_w, layer_pad_right(l));
  else snprintf(padw, sizeof padw, "pad_w=%d", l->pad_w);
  if (l->kh > ph)
    return diag_error(d, "kernel height kh=%d is larger than the padded input height %d (h=%d, %s), so there "
                      "are no output rows, in layer spec '%s'", l->kh, ph, l->h, padh, spec);
  if (l->kw > pw)
    return diag_error(d, "kernel width kw=%d is larger than the padded input width %d (w=%d, %s), so there "
                      "are no output columns, in layer spec '%s'", l->kw, pw, l->w, padw, spec);
  return true;
}

/* Every tensor within int32 elements (in double: the products may pass int64). */
static bool size_check(const Layer *l, const char *spec, Diag *d) {
  double nc = (double)l->n * l->c;
  const struct {
    const char *what;
    double elems;
  } t[] = {
      {"input", nc * l->h * l->w},
      {"padded input", nc * ((double)l->h + l->pad_h + layer_pad_bottom(l)) * ((double)l->w + l->pad_w + layer_pad_right(l))},
      {"weights", (double)l->k * (l->c / l->groups) * l->kh * l->kw},
      {"output", (double)l->n * l->k * l->out_h * l->out_w},
  };
  for (size_t i = 0; i < sizeof t / sizeof *t; i++)
    if (t[i].elems > INT32_MAX)
      return diag_error(d, "the %s tensor has %.0f elements, more than %d (the kernels index with 32-bit int), in layer "
                        "spec '%s'", t[i].what, t[i].elems, INT32_MAX, spec);
  return true;
}

static bool check(Layer *l, const char *spec, Diag *d) {
  if ((unsigned)l->act >= NACTS)
    return diag_error(d, "activation %d is not one of %s in layer spec '%s'", (int)l->act, ACT_LIST, spec);
  if (l->dil_h == 0) l->dil_h = 1;   // built by hand without it
  if (l->dil_w == 0) l->dil_w = 1;
  if (l->groups == 0) l->groups = 1;
  if (!fields_check(l, spec, d) || !groups_check(l, spec, d) || !act_args_check(l->act, l->act_a, l->act_b, spec, d) ||
      !kernel_check(l, spec, d))
    return false;
  if (l->scale && layer_groups(l) > 1)   // the groups' windows are a view the scale's channels would have to follow
    return diag_error(d, "scale=1 is for a dense layer (groups=1), not one of %d groups, in layer spec '%s'",
                      layer_groups(l), spec);
  l->out_h = (l->h + l->pad_h + layer_pad_bottom(l) - ((l->kh - 1) * l->dil_h + 1)) / l->stride_h + 1;
  l->out_w = (l->w + l->pad_w + layer_pad_right(l) - ((l->kw - 1) * l->dil_w + 1)) / l->stride_w + 1;
  return size_check(l, spec, d);
}

bool layer_check(Layer *l, Diag *d) {
  StrBuf sb;
  sb_init(&sb);
  layer_format(&sb, l);
  bool ok = check(l, sb_str(&sb), d);
  sb_free(&sb);
  return ok;
}

/* ---- Formatting --------------------------------------------------------------------- */

typedef struct Fmt {
  StrBuf *sb;
  bool first;   // no field written yet (no comma before the next)
} Fmt;

static void put(Fmt *f, const char *key, int v) {
  sb_printf(f->sb, "%s%s=%d", f->first ? "" : ",", key, v);
  f->first = false;
}

/* `both=v` when the two values are equal (and both wanted), else each wanted one. */
static void put_pair(Fmt *f, const char *both, const char *kh, const char *kw, int vh, int vw, bool wh, bool ww) {
  if (wh && ww && vh == vw) {
    put(f, both, vh);
    return;
  }
  if (wh) put(f, kh, vh);
  if (ww) put(f, kw, vw);
}

/* The fields of l, in canonical order: all of them (base NULL), or only those
 * that differ from base. */
static void put_fields(Fmt *f, const Layer *l, const Layer *base) {
  const Layer *b = base ? base : l;
  bool all = !base;
  if (all || l->n != b->n) put(f, "n", l->n);
  if (all || l->c != b->c) put(f, "c", l->c);
  if (all || l->h != b->h) put(f, "h", l->h);
  if (all || l->w != b->w) put(f, "w", l->w);
  if (all || l->k != b->k) put(f, "k", l->k);
  if (all || l->kh != b->kh) put(f, "kh", l->kh);
  if (all || l->kw != b->kw) put(f, "kw", l->kw);
  put_pair(f, "stride", "stride_h", "stride_w", l->stride_h, l->stride_w, all || l->stride_h != b->stride_h,
           all || l->stride_w != b->stride_w);
  if (layer_pad_symmetric(l)) {
    put_pair(f, "pad", "pad_h", "pad_w", l->pad_h, l->pad_w, all || l->pad_h != b->pad_h || b->pad_dh,
             all || l->pad_w != b->pad_w || b->pad_dw);
  } else {   // ONNX's order, every side: one that differs from the other is easier read in full
    put(f, "pad_top", l->pad_h);
    put(f, "pad_left", l->pad_w);
    put(f, "pad_bottom", layer_pad_bottom(l));
    put(f, "pad_right", layer_pad_right(l));
  }
  // only when there is one, so that every undilated layer keeps the spec its records are under
  put_pair(f, "dilation", "dilation_h", "dilation_w", l->dil_h, l->dil_w,
           (all && (l->dil_h != 1 || l->dil_w != 1)) || l->dil_h != b->dil_h,
           (all && (l->dil_h != 1 || l->dil_w != 1)) || l->dil_w != b->dil_w);
  // likewise: only a grouped layer says groups=
  int g = l->groups ? l->groups : 1, bg = b->groups ? b->groups : 1;
  if ((all && g != 1) || g != bg) put(f, "groups", g);
  if (all || l->bias != b->bias) put(f, "bias", l->bias);
  if (all || l->act != b->act || l->act_a != b->act_a || l->act_b != b->act_b) {
    if (l->act == ACT_NONE || l->act == ACT_RELU) {
      put(f, "relu", l->act == ACT_RELU);
    } else {
      sb_printf(f->sb, "%sact=", f->first ? "" : ",");
      layer_act_format(f->sb, l);
      f->first = false;
    }
  }
  // only a layer with one says residual=, so that every other keeps its key
  if ((all && l->residual) || l->residual != b->residual) put(f, "residual", l->residual);
  // likewise scale=
  if ((all && l->scale) || l->scale != b->scale) put(f, "scale", l->scale);
  // likewise precision=: an fp32 layer keeps its key
  if ((all && l->precision != PREC_FP32) || l->precision != b->precision) {
    sb_printf(f->sb, "%sprecision=%s", f->first ? "" : ",", layer_precision_name(l->precision));
    f->first = false;
  }
}

/* The shortest %g form that reads back as the same float. */
static void put_float(StrBuf *sb, float v) {
  char buf[32];
  for (int prec = 1; prec <= 9; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, (double)v);
    if (strtof(buf, NULL) == v) break;
  }
  sb_puts(sb, buf);
}

const char *layer_act_name(LayerAct act) {
  cg_assert((unsigned)act < NACTS);
  return acts[act].name;
}

void layer_act_format(StrBuf *sb, const Layer *l) {
  cg_assert((unsigned)l->act < NACTS);
  sb_puts(sb, acts[l->act].name);
  if (acts[l->act].nargs == 0) return;
  sb_putc(sb, '(');
  put_float(sb, l->act_a);
  if (acts[l->act].nargs == 2) sb_putc(sb, ','), put_float(sb, l->act_b);
  sb_putc(sb, ')');
}

/* v as a float literal of C: a point or an exponent, then f. */
static void put_float_literal(StrBuf *sb, float v) {
  size_t start = sb->len;
  put_float(sb, v);
  if (!strpbrk(sb_str(sb) + start, ".e")) sb_puts(sb, ".0");
  sb_putc(sb, 'f');
}

void layer_act_c(StrBuf *sb, const Layer *l, const char *x) {
  switch (l->act) {
  case ACT_NONE: sb_puts(sb, x); return;
  case ACT_RELU: sb_printf(sb, "fmax(%s, 0.0f)", x); return;
  case ACT_RELU6: sb_printf(sb, "fmin(fmax(%s, 0.0f), 6.0f)", x); return;
  case ACT_CLIP:
    sb_printf(sb, "fmin(fmax(%s, ", x), put_float_literal(sb, l->act_a), sb_puts(sb, "), ");
    put_float_literal(sb, l->act_b), sb_putc(sb, ')');
    return;
  case ACT_LEAKY:   // 0 < alpha < 1: the larger of x and alpha*x, no branch
    sb_printf(sb, "fmax(%s, ", x), put_float_literal(sb, l->act_a), sb_printf(sb, " * %s)", x);
    return;
  case ACT_SIGMOID: sb_printf(sb, "1.0f / (1.0f + exp(-%s))", x); return;
  case ACT_HARDSWISH: sb_printf(sb, "%s * fmin(fmax(%s + 3.0f, 0.0f), 6.0f) / 6.0f", x, x); return;
  case ACT_SILU: sb_printf(sb, "%s / (1.0f + exp(-%s))", x, x); return;
  case ACT_HARDSIGMOID:
    sb_puts(sb, "fmin(fmax("), put_float_literal(sb, l->act_a), sb_printf(sb, " * %s + ", x);
    put_float_literal(sb, l->act_b), sb_puts(sb, ", 0.0f), 1.0f)");
    return;
  }
  cg_die("bad LayerAct %d", (int)l->act);
}

double layer_act_apply(const Layer *l, double x) {
  switch (l->act) {
  case ACT_NONE: return x;
  case ACT_RELU: return x < 0 ? 0 : x;   // NaN compares false and stays NaN
  case ACT_RELU6: return x < 0 ? 0 : x > 6 ? 6 : x;
  case ACT_CLIP: return x < l->act_a ? l->act_a : x > l->act_b ? l->act_b : x;
  case ACT_LEAKY: return x > 0 ? x : l->act_a * x;
  case ACT_SIGMOID: return 1 / (1 + exp(-x));
  case ACT_HARDSWISH: return x * (x + 3 < 0 ? 0 : x + 3 > 6 ? 6 : x + 3) / 6;
  case ACT_SILU: return x / (1 + exp(-x));
  case ACT_HARDSIGMOID: {
    double y = (double)l->act_a * x + (double)l->act_b;
    return y < 0 ? 0 : y > 1 ? 1 : y;   // NaN compares false and stays NaN
  }
  }
  cg_die("bad LayerAct %d", (int)l->act);
}

void layer_format(StrBuf *sb, const Layer *l) {
  Fmt f = {sb, true};
  put_fields(&f, l, NULL);
}

/* name = the table name, then the overrides that changed something. */
static void name_override(Layer *l, const Layer *base) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, base->name);
  Fmt f = {&sb, false};
  put_fields(&f, l, base);
  cg_assert(sb.len < sizeof l->name);
  memcpy(l->name, sb_str(&sb), sb.len + 1);
  sb_free(&sb);
}

/* ---- Parsing -------------------------------------------------------------------------- */

typedef struct Parse {
  const char *spec;       // the whole spec, quoted in every message
  Diag *d;
  const Named *named;     // the named layer of the first item, or NULL
  int64_t val[NKEYS];     // values of the keys given (KEY_ACT: a LayerAct, KEY_PRECISION: a LayerPrecision)
  bool given[NKEYS];
  float act_a, act_b;     // act='s arguments
} Parse;

static bool is_space(char ch) { return ch == ' ' || ch == '\t'; }

/* Narrows s[0..*n) to its part without surrounding spaces. */
static const char *trim(const char *s, size_t *n) {
  while (*n && is_space(*s)) s++, (*n)--;
  while (*n && is_space(s[*n - 1])) (*n)--;
  return s;
}

static bool is_name_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
         ch == '.';
}

static size_t name_len(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && is_name_char(s[i])) i++;
  return i;
}

/* An item of the form net.layer (it came first; s[0..n) trimmed, no '='). */
static bool parse_named(Parse *p, const char *s, size_t n) {
  size_t id = name_len(s, n);
  const char *dot = memchr(s, '.', id);
  StrBuf sb;
  sb_init(&sb);
  if (!dot) {
    int net = find_network(s, id);
    list_names(&sb, net >= 0 ? networks[net] : NULL);
    if (net >= 0 && id == n)
      diag_error(p->d, "'%s' names a network, not a layer, in layer spec '%s' (%s layers: %s)", networks[net],
                 p->spec, networks[net], sb_str(&sb));
    else
      diag_error(p->d, "expected key=value or a named layer (network.layer), got '%.*s' in layer spec '%s' "
                 "(networks: %s; keys: %s)", (int)n, s, p->spec, sb_str(&sb), KEY_LIST);
  } else if (find_network(s, (size_t)(dot - s)) < 0) {
    list_names(&sb, NULL);
    diag_error(p->d, "unknown network '%.*s' in layer spec '%s' (networks: %s)", (int)(dot - s), s, p->spec,
               sb_str(&sb));
  } else if (!(p->named = find_named(s, id))) {
    int net = find_network(s, (size_t)(dot - s));
    list_names(&sb, networks[net]);
    diag_error(p->d, "unknown layer '%.*s' of %s in layer spec '%s' (%s layers: %s)", (int)(id - (size_t)(dot - s) - 1),
               dot + 1, networks[net], p->spec, networks[net], sb_str(&sb));
  } else if (id < n) {
    diag_error(p->d, "trailing characters '%.*s' after layer name '%.*s' in layer spec '%s'", (int)(n - id), s + id,
               (int)id, s, p->spec);
  }
  sb_free(&sb);
  return !p->d->set;
}

/* Reads the whole number at the start of s[0..n) (an optional '-', then digits),
 * saturating far above every limit; returns how many characters it used. */
static size_t scan_int(const char *s, size_t n, int64_t *v) {
  size_t i = s[0] == '-' ? 1 : 0, start = i;
  int64_t x = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) x = x < INT32_MAX ? x * 10 + (s[i] - '0') : x;
  if (i == start) return 0;
  *v = s[0] == '-' ? -x : x;
  return i;
}

/* A key's value, at v[0..n) (trimmed, not empty). */
static bool parse_value(Parse *p, Key key, const char *v, size_t n) {
  int64_t x;
  size_t used = scan_int(v, n, &x);
  const char *k = keys[key].name;
  if (!used)
    return diag_error(p->d, "malformed value '%.*s' for key '%s' in layer spec '%s' (expected %s)", (int)n, v, k,
                      p->spec, keys[key].hi == 1 ? "0 or 1" : "a whole number");
  if (used < n)
    return diag_error(p->d, "trailing characters '%.*s' after %s=%.*s in layer spec '%s'", (int)(n - used), v + used,
                      k, (int)used, v, p->spec);
  char text[64];
  snprintf(text, sizeof text, "%.*s", (int)(n < 40 ? n : 40), v);
  if (!range_check(key, x, text, p->spec, p->d)) return false;
  p->val[key] = x;
  p->given[key] = true;
  return true;
}

/* One argument of act=NAME(...), s[0..n) untrimmed. */
static bool parse_act_arg(Parse *p, const char *name, const char *s, size_t n, float *out) {
  s = trim(s, &n);
  char buf[64], *end;
  if (n && n < sizeof buf) {
    memcpy(buf, s, n), buf[n] = 0;
    double v = strtod(buf, &end);
    if (*end == 0 && isfinite(v) && fabs(v) <= LAYER_ACT_MAX) return *out = (float)v, true;
  }
  return diag_error(p->d, "malformed argument '%.*s' of act=%s in layer spec '%s' (expected a number within +-%g)",
                    (int)(n < 40 ? n : 40), s, name, p->spec, LAYER_ACT_MAX);
}

/* act=NAME or act=NAME(ARG[,ARG]), v[0..n) trimmed, not empty. */
static bool parse_act(Parse *p, const char *v, size_t n) {
  size_t id = name_len(v, n);
  int act = 0;
  while (act < NACTS && !span_is(v, id, acts[act].name)) act++;
  if (act == NACTS)
    return diag_error(p->d, "unknown activation '%.*s' in layer spec '%s' (act: %s)", (int)n, v, p->spec, ACT_LIST);
  const char *name = acts[act].name, *args = v + id;
  size_t an = n - id;
  float a[2] = {0, 0};
  int got = 0;
  if (an) {
    if (args[0] != '(' || args[an - 1] != ')')
      return diag_error(p->d, "malformed act=%.*s in layer spec '%s' (expected %s%s)", (int)n, v, p->spec, name,
                        act == ACT_HARDSIGMOID ? "(ALPHA,BETA)" : acts[act].nargs == 2 ? "(MIN,MAX)"
                        : acts[act].nargs == 1 ? "(ALPHA)" : "");
    const char *s = args + 1, *stop = args + an - 1;
    for (;; got++) {
      const char *comma = memchr(s, ',', (size_t)(stop - s));
      const char *e = comma ? comma : stop;
      if (got < 2 && !parse_act_arg(p, name, s, (size_t)(e - s), &a[got])) return false;
      if (!comma) break;
      s = comma + 1;
    }
    got++;
  }
  if (got != acts[act].nargs)
    return diag_error(p->d, "act=%s takes %d argument%s, not %d, in layer spec '%s' (act: %s)", name, acts[act].nargs,
                      acts[act].nargs == 1 ? "" : "s", got, p->spec, ACT_LIST);
  if (!act_args_check((LayerAct)act, a[0], a[1], p->spec, p->d)) return false;
  p->val[KEY_ACT] = act, p->act_a = a[0], p->act_b = a[1];
  p->given[KEY_ACT] = true;
  return true;
}

/* The precisions, in LayerPrecision order, as precision= names them. */
static const char *const precisions[] = {[PREC_FP32] = "fp32", [PREC_FP16] = "fp16", [PREC_TF32] = "tf32"};
enum { NPRECISIONS = (int)(sizeof precisions / sizeof *precisions) };

const char *layer_precision_name(LayerPrecision p) {
  cg_assert((unsigned)p < NPRECISIONS);
  return precisions[p];
}

const ElemType *layer_elem(const Layer *l) { return layer_precision_elem(l->precision); }

const ElemType *layer_precision_elem(LayerPrecision p) { return elem_type(p == PREC_FP16 ? ELEM_FP16 : ELEM_FP32); }

/* The precision named by v[0..n); -1 for bf16 (not built), -2 for
 * any other name. */
static int find_precision(const char *v, size_t n) {
  for (int i = 0; i < NPRECISIONS; i++)
    if (span_is(v, n, precisions[i])) return i;
  return span_is(v, n, "bf16") ? -1 : -2;
}

/* precision=NAME, v[0..n) trimmed, not empty. */
static bool parse_precision(Parse *p, const char *v, size_t n) {
  int i = find_precision(v, n);
  if (i >= 0) {
    p->val[KEY_PRECISION] = i;
    p->given[KEY_PRECISION] = true;
    return true;
  }
  if (i == -1)
    return diag_error(p->d, "precision=%.*s is not built yet in layer spec '%s' (precision: fp32, fp16, tf32)", (int)n, v,
                      p->spec);
  return diag_error(p->d, "unknown precision '%.*s' in layer spec '%s' (precision: fp32, fp16, tf32)", (int)n, v, p->spec);
}

bool layer_precision_parse(const char *name, LayerPrecision *out, Diag *d) {
  int i = find_precision(name, strlen(name));
  if (i >= 0) return *out = (LayerPrecision)i, true;
  if (i == -1) return diag_error(d, "precision %s is not built yet (precisions: fp32, fp16, tf32)", name);
  return diag_error(d, "unknown precision '%s' (precisions: fp32, fp16, tf32)", name);
}

void layer_set_precision(Layer *l, LayerPrecision p) {
  if (l->precision == p) return;
  l->precision = p;
  // a named layer's name says how it differs from the network's: so does this
  size_t n = strlen(l->name);
  if (n && !layer_spec_gives(l->name, "precision")) {
    int w = snprintf(l->name + n, sizeof l->name - n, ",precision=%s", layer_precision_name(p));
    cg_assert(w > 0 && (size_t)w < sizeof l->name - n);   // LAYER_NAME_MAX has room for every override
  }
}

/* stride and stride_h (or stride_w) set the same field: giving both is an error. */
static bool conflict_check(Parse *p, Key key) {
  static const Key pairs[][2] = {{KEY_STRIDE, KEY_STRIDE_H}, {KEY_STRIDE, KEY_STRIDE_W},
                                 {KEY_PAD, KEY_PAD_H}, {KEY_PAD, KEY_PAD_W}, {KEY_RELU, KEY_ACT}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    Key a = pairs[i][0], b = pairs[i][1];
    if ((key == a && p->given[b]) || (key == b && p->given[a]))
      return diag_error(p->d, "'%s' and '%s' both set %s in layer spec '%s'", keys[key == a ? b : a].name,
                        keys[key].name, b == KEY_ACT ? "the activation" : keys[b].name, p->spec);
  }
  return true;
}

/* One key=value item (s[0..n) trimmed; eq points at its '='). */
static bool parse_pair(Parse *p, const char *s, size_t n, const char *eq) {
  size_t kn = (size_t)(eq - s), vn = n - kn - 1;
  const char *k = trim(s, &kn), *v = trim(eq + 1, &vn);
  if (!kn) return diag_error(p->d, "missing key before '=' in '%.*s' in layer spec '%s'", (int)n, s, p->spec);
  int key = find_key(k, kn);
  if (key < 0)
    return diag_error(p->d, "unknown key '%.*s' in layer spec '%s' (keys: %s)", (int)kn, k, p->spec, KEY_LIST);
  if (p->given[key]) return diag_error(p->d, "duplicate key '%s' in layer spec '%s'", keys[key].name, p->spec);
  if (!conflict_check(p, (Key)key)) return false;
  if (!vn) return diag_error(p->d, "missing value for key '%s' in layer spec '%s'", keys[key].name, p->spec);
  if (key == KEY_ACT) return parse_act(p, v, vn);
  if (key == KEY_PRECISION) return parse_precision(p, v, vn);
  return parse_value(p, (Key)key, v, vn);
}

/* Item number i, s[0..n) untrimmed; last: it is the spec's last item. */
static bool parse_item(Parse *p, int i, const char *s, size_t n, bool last) {
  s = trim(s, &n);
  if (!n && last && i > 0) return diag_error(p->d, "trailing ',' at the end of layer spec '%s'", p->spec);
  if (!n) return diag_error(p->d, "empty item in layer spec '%s'", p->spec);
  const char *eq = memchr(s, '=', n);
  if (i == 0 && (!eq || memchr(s, '.', name_len(s, n)))) return parse_named(p, s, n);
  if (find_named(s, name_len(s, n)))
    return diag_error(p->d, "named layer '%.*s' must come first in layer spec '%s'", (int)name_len(s, n), s, p->spec);
  if (!eq) return diag_error(p->d, "expected key=value, got '%.*s' in layer spec '%s'", (int)n, s, p->spec);
  return parse_pair(p, s, n, eq);
}


/* The first ',' of s outside parentheses (act=clip(0,6) is one item), or NULL. */
static const char *item_end(const char *s) {
  for (int depth = 0; *s; s++) {
    if (*s == '(') depth++;
    else if (*s == ')' && depth) depth--;
    else if (*s == ',' && !depth) return s;
  }
  return NULL;
}

static bool parse_items(Parse *p) {
  const char *s = p->spec;
  for (int i = 0;; i++) {
    const char *comma = item_end(s);
    size_t n = comma ? (size_t)(comma - s) : strlen(s);
    if (!parse_item(p, i, s, n, !comma)) return false;
    if (!comma) return true;
    s = comma + 1;
  }
}

/* ---- From parsed items to a layer -------------------------------------------------------- */

/* The plain form's starting point; c, h, w and k must be given, kh and kw both or neither. */
static bool plain_base(Parse *p, Layer *l) {
  static const Key required[] = {KEY_C, KEY_H, KEY_W, KEY_K};
  StrBuf sb;
  sb_init(&sb);
  for (size_t i = 0; i < sizeof required / sizeof *required; i++)
    if (!p->given[required[i]]) sb_printf(&sb, "%s%s", sb.len ? ", " : "", keys[required[i]].name);
  if (sb.len)
    diag_error(p->d, "missing %s in layer spec '%s' (required: c, h, w, k; or start with a named layer such as "
               "vgg16.conv3_2)", sb_str(&sb), p->spec);
  sb_free(&sb);
  if (p->d->set) return false;
  if (p->given[KEY_KH] != p->given[KEY_KW])
    return diag_error(p->d, "%s given without %s in layer spec '%s' (give both, or neither for 3x3)",
                      p->given[KEY_KH] ? "kh" : "kw", p->given[KEY_KH] ? "kw" : "kh", p->spec);
  *l = (Layer){.n = 1, .kh = 3, .kw = 3, .stride_h = 1, .stride_w = 1, .groups = 1};
  return true;
}

/* Lays the given values over *l. */
static void apply(const Parse *p, Layer *l) {
  int *fields[NKEYS] = {[KEY_N] = &l->n, [KEY_C] = &l->c, [KEY_H] = &l->h, [KEY_W] = &l->w, [KEY_K] = &l->k,
                        [KEY_KH] = &l->kh, [KEY_KW] = &l->kw, [KEY_STRIDE_H] = &l->stride_h,
                        [KEY_STRIDE_W] = &l->stride_w, [KEY_PAD_H] = &l->pad_h, [KEY_PAD_W] = &l->pad_w};
  for (int i = 0; i < NKEYS; i++)
    if (p->given[i] && fields[i]) *fields[i] = (int)p->val[i];
  if (p->given[KEY_STRIDE]) l->stride_h = l->stride_w = (int)p->val[KEY_STRIDE];
  if (p->given[KEY_PAD]) l->pad_h = l->pad_w = (int)p->val[KEY_PAD];
  if (p->given[KEY_DILATION]) l->dil_h = l->dil_w = (int)p->val[KEY_DILATION];
  if (p->given[KEY_DILATION_H]) l->dil_h = (int)p->val[KEY_DILATION_H];
  if (p->given[KEY_DILATION_W]) l->dil_w = (int)p->val[KEY_DILATION_W];
  if (p->given[KEY_GROUPS]) l->groups = (int)p->val[KEY_GROUPS];
  // the sides, the base's and then pad, pad_h and pad_w's, then each one given
  int top = l->pad_h, bottom = p->given[KEY_PAD] || p->given[KEY_PAD_H] ? l->pad_h : layer_pad_bottom(l),
      left = l->pad_w, right = p->given[KEY_PAD] || p->given[KEY_PAD_W] ? l->pad_w : layer_pad_right(l);
  if (p->given[KEY_PAD_TOP]) top = (int)p->val[KEY_PAD_TOP];
  if (p->given[KEY_PAD_BOTTOM]) bottom = (int)p->val[KEY_PAD_BOTTOM];
  if (p->given[KEY_PAD_LEFT]) left = (int)p->val[KEY_PAD_LEFT];
  if (p->given[KEY_PAD_RIGHT]) right = (int)p->val[KEY_PAD_RIGHT];
  l->pad_h = top, l->pad_dh = bottom - top, l->pad_w = left, l->pad_dw = right - left;
  if (p->given[KEY_BIAS]) l->bias = p->val[KEY_BIAS] != 0;
  if (p->given[KEY_RELU]) l->act = p->val[KEY_RELU] ? ACT_RELU : ACT_NONE, l->act_a = l->act_b = 0;
  if (p->given[KEY_ACT]) l->act = (LayerAct)p->val[KEY_ACT], l->act_a = p->act_a, l->act_b = p->act_b;
  if (p->given[KEY_RESIDUAL]) l->residual = p->val[KEY_RESIDUAL] != 0;
  if (p->given[KEY_SCALE]) l->scale = p->val[KEY_SCALE] != 0;
  if (p->given[KEY_PRECISION]) l->precision = (LayerPrecision)p->val[KEY_PRECISION];
}

bool layer_spec_gives(const char *spec, const char *key) {
  Diag d = {0};
  Parse p = {.spec = spec ? spec : "", .d = &d};
  int k = find_key(key, strlen(key));
  return spec && k >= 0 && parse_items(&p) && p.given[k];
}

bool layer_parse(const char *spec, Layer *out, Diag *d) {
  size_t n = spec ? strlen(spec) : 0;
  if (spec) trim(spec, &n);
  if (!n)
    return diag_error(d, "empty layer spec (give a named layer such as vgg16.conv3_2, or the plain form "
                      "n=1,c=128,h=56,w=56,k=256,kh=3,kw=3,stride=1,pad=1)");
  Diag local = {0};
  Parse p = {.spec = spec, .d = d ? d : &local};
  if (!parse_items(&p)) return false;
  Layer base;
  if (p.named) base = from_named(p.named);
  else if (!plain_base(&p, &base)) return false;
  *out = base;
  apply(&p, out);
  if (p.named) name_override(out, &base);
  return check(out, spec, p.d);
}

/* ---- Sizes and networks --------------------------------------------------------------------- */

bool layer_equal(const Layer *a, const Layer *b) {
  return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w && a->k == b->k && a->kh == b->kh &&
         a->kw == b->kw && a->stride_h == b->stride_h && a->stride_w == b->stride_w && a->pad_h == b->pad_h &&
         a->pad_w == b->pad_w && a->pad_dh == b->pad_dh && a->pad_dw == b->pad_dw &&
         (a->dil_h ? a->dil_h : 1) == (b->dil_h ? b->dil_h : 1) && (a->dil_w ? a->dil_w : 1) == (b->dil_w ? b->dil_w : 1) &&
         (a->groups ? a->groups : 1) == (b->groups ? b->groups : 1) &&
         a->bias == b->bias && a->act == b->act && a->act_a == b->act_a && a->act_b == b->act_b &&
         a->residual == b->residual && a->scale == b->scale && a->precision == b->precision;
}

int layer_pad_bottom(const Layer *l) { return l->pad_h + l->pad_dh; }
int layer_groups(const Layer *l) { return l->groups > 1 ? l->groups : 1; }
int layer_group_c(const Layer *l) { return l->c / layer_groups(l); }
int layer_group_k(const Layer *l) { return l->k / layer_groups(l); }

Layer layer_group(const Layer *l) {
  Layer g = *l;
  g.c = layer_group_c(l), g.k = layer_group_k(l), g.groups = 1;
  return g;
}
int layer_pad_right(const Layer *l) { return l->pad_w + l->pad_dw; }
bool layer_pad_symmetric(const Layer *l) { return l->pad_dh == 0 && l->pad_dw == 0; }

double layer_flops(const Layer *l) {
  return 2.0 * l->n * l->k * l->out_h * l->out_w * (double)layer_group_c(l) * l->kh * l->kw;
}

const char *layer_tensor_name(LayerTensor t) {
  static const char *names[] = {[LAYER_INPUT] = "input", [LAYER_WEIGHTS] = "weights", [LAYER_BIAS] = "bias",
                                [LAYER_OUTPUT] = "output", [LAYER_RESIDUAL] = "residual", [LAYER_SCALE] = "scale"};
  cg_assert((unsigned)t < sizeof names / sizeof *names);
  return names[t];
}

int64_t layer_elems(const Layer *l, LayerTensor t) {
  switch (t) {
  case LAYER_INPUT: return (int64_t)l->n * l->c * l->h * l->w;
  case LAYER_WEIGHTS: return (int64_t)l->k * layer_group_c(l) * l->kh * l->kw;
  case LAYER_BIAS: return l->bias ? l->k : 0;
  case LAYER_OUTPUT: return (int64_t)l->n * l->k * l->out_h * l->out_w;
  case LAYER_RESIDUAL: return l->residual ? layer_elems(l, LAYER_OUTPUT) : 0;
  case LAYER_SCALE: return l->scale ? (int64_t)l->n * l->c : 0;
  }
  cg_die("bad LayerTensor %d", (int)t);
}

int64_t layer_bytes(const Layer *l, LayerTensor t) { return elem_bytes(layer_elem(l), layer_elems(l, t)); }

const char *layer_network_name(int i) { return i >= 0 && i < NNETWORKS ? networks[i] : NULL; }

int layer_network(const char *name, Layer *out, int max) {
  if (!name || find_network(name, strlen(name)) < 0) return -1;
  int count = 0;
  for (int i = 0; i < NNAMED; i++) {
    if (strcmp(named[i].net, name) != 0) continue;
    if (count < max) out[count] = from_named(&named[i]);
    count++;
  }
  return count;
}

int layer_dedup(Layer *ls, int n, int *repeats) {
  int kept = 0;
  for (int i = 0; i < n; i++) {
    int j = 0;
    while (j < kept && !layer_equal(&ls[j], &ls[i])) j++;
    if (j == kept) {
      if (kept != i) ls[kept] = ls[i];
      if (repeats) repeats[kept] = 0;
      kept++;
    }
    if (repeats) repeats[j]++;
  }
  return kept;
}
